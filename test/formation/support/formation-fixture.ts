import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engram, type EngramEvent } from '../../../src/engram.js';
import type { FormationOptions } from '../../../src/formation/formation-options.js';
import type { Memory } from '../../../src/model/memory.js';
import type { MemoryStatus, MemoryType } from '../../../src/model/memory-type.js';
import type { MemoryStore } from '../../../src/store/memory-store.js';
import { createPostgresStore } from '../../../src/store/postgres/index.js';
import { createSqliteStore } from '../../../src/store/sqlite/index.js';
import { afterAll, afterEach, describe } from 'vitest';
import { startCitusCluster, type CitusCluster } from '../../support/citus-cluster.js';
import { HashedEmbedder } from '../../support/hashed-embedder.js';
import { startPgCluster, type PgCluster } from '../../support/pg-cluster.js';
import { describeWithPgExtensions, type PgExtensionName } from '../../support/pg-extensions.js';
import { chatFor, handleOf, type Provider } from './chat-for.js';
import {
  startScriptedLlm,
  type ScriptedLlmServer,
  type ScriptedReply,
  type ScriptedRequest,
  type ScriptRule,
} from './scripted-llm-server.js';

export const BACKEND_NAMES = ['sqlite', 'postgres', 'citus'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];

/** Extensions a backend's server needs; the others need none. */
const BACKEND_EXTENSIONS: Partial<Record<BackendName, readonly PgExtensionName[]>> = {
  citus: ['citus', 'vector'],
};

/**
 * `describe.each(BACKEND_NAMES)` with the Citus suite behind the extension gate of every other
 * Citus test: skipped with the install hint when Citus or pgvector is missing, failing under CI.
 */
export function describeEachBackend(title: string, body: (backend: BackendName) => void): void {
  for (const backend of BACKEND_NAMES) {
    const name = title.replace('%s', backend);
    const extensions = BACKEND_EXTENSIONS[backend];
    if (extensions === undefined) describe(name, () => body(backend));
    else describeWithPgExtensions(name, extensions, () => body(backend));
  }
}

/**
 * Real stores for formation tests: a SQLite file in a temp folder, a schema on a throwaway
 * PostgreSQL server, or a schema on a throwaway Citus cluster (coordinator + 2 workers on
 * 127.0.0.1, pgvector on every node). Servers start once per test file, on first use.
 */
export class FormationBackends {
  private cluster: PgCluster | undefined;
  private citus: CitusCluster | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'engram-formation-'));
  private n = 0;

  /** Where a store of `backend` lives, so that a second process can open the same one. */
  async location(backend: BackendName): Promise<string> {
    const n = this.n++;
    if (backend === 'sqlite') return join(this.dir, `f${n}.db`);
    if (backend === 'postgres') {
      this.cluster ??= await startPgCluster({ database: 'engram_formation' });
      return `${this.cluster.url}#formation_${n}#app`;
    }
    // Few shards: every test migrates (and so distributes) a schema of its own.
    this.citus ??= await startCitusCluster({ database: 'engram_formation', settings: { 'citus.shard_count': 4 } });
    return `${this.citus.url}#formation_${n}#pgvector`;
  }

  async open(backend: BackendName, location?: string): Promise<MemoryStore> {
    return openStoreAt(location ?? (await this.location(backend)));
  }

  async close(): Promise<void> {
    await Promise.all([this.cluster?.stop(), this.citus?.stop()]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Opens a location from {@link FormationBackends.location}: a SQLite path or
 * `postgres://…#schema#vector-mode` (Citus is detected by the store on the coordinator).
 */
export async function openStoreAt(location: string): Promise<MemoryStore> {
  if (!location.startsWith('postgres://')) return createSqliteStore({ path: location });
  const [url, schema, vector] = location.split('#') as [string, string, 'app' | 'pgvector'];
  return createPostgresStore({ connectionString: url, schema, vector });
}

/** Formation options fast enough for tests: the worker polls often, retries come quickly. */
export function testFormation(model: FormationOptions['llm'], extra: FormationOptions = {}): FormationOptions {
  return {
    llm: model,
    worker: { pollMs: 20, leaseMs: 5_000, graceMs: 2_000, ...(extra.worker === false ? {} : extra.worker) },
    retry: { maxAttempts: 4, baseMs: 20, maxMs: 100, ...extra.retry },
    captureQuietMs: 200,
    ...extra,
    ...(extra.worker === false ? { worker: false } : {}),
  };
}

/** Engram over a real store, the hashed embedder, and formation through the scripted server. */
export async function openFormed(
  store: MemoryStore,
  llm: { provider: Provider; server: ScriptedLlmServer } | null,
  extra: FormationOptions = {},
  events: EngramEvent[] = [],
): Promise<Engram> {
  const model = llm ? chatFor(llm.provider, llm.server, { retries: 1, timeoutMs: 2_000 }) : false;
  return Engram.open({
    store,
    embedder: new HashedEmbedder({ dim: 128 }),
    env: {},
    formation: testFormation(model, extra),
    onEvent: (event) => events.push(event),
  });
}

/** A formation end-to-end suite's per-file fixture (see {@link formationSuite}). */
export interface FormationSuite {
  backends: FormationBackends;
  /** Engram on a new store of `backend` with formation and no LLM (episodes, or the rule-based extractor on request). */
  withoutLlm(backend: BackendName, extra?: FormationOptions): Promise<Engram>;
  /** Engram on a new store of `backend`, formation through a new scripted server answering `rules`. */
  withScriptedLlm(
    backend: BackendName,
    llm: { rules: ScriptRule[]; provider?: Provider; hangMs?: number | undefined; events?: EngramEvent[] },
  ): Promise<{ engram: Engram; server: ScriptedLlmServer }>;
}

/**
 * The preamble of a formation end-to-end file: real backends (stopped after the file), and every
 * Engram and scripted LLM server a test opens through it closed after that test.
 */
export function formationSuite(): FormationSuite {
  const backends = new FormationBackends();
  const open: Array<{ engram: Engram; server: ScriptedLlmServer | null }> = [];
  afterEach(async () => {
    for (const { engram, server } of open.splice(0)) {
      await engram.close();
      await server?.close();
    }
  });
  afterAll(() => backends.close());
  return {
    backends,
    async withoutLlm(backend, extra = {}) {
      const engram = await openFormed(await backends.open(backend), null, extra);
      open.push({ engram, server: null });
      return engram;
    },
    async withScriptedLlm(backend, { rules, provider = 'openai', hangMs, events = [] }) {
      const server = await startScriptedLlm({ rules, hangMs });
      const engram = await openFormed(await backends.open(backend), { provider, server }, {}, events);
      open.push({ engram, server });
      return { engram, server };
    },
  };
}

/** The scope's formed facts (user, preference and long-term memories), of `statuses` (default: activated). */
export async function formedFacts(
  engram: Engram,
  options: { limit: number; statuses?: MemoryStatus[] | undefined },
): Promise<Memory[]> {
  const types: MemoryType[] = ['UserMemory', 'PreferenceMemory', 'LongTermMemory'];
  const statuses = options.statuses === undefined ? {} : { statuses: options.statuses };
  return (await engram.list({ scope: { tenant: 't', user: 'ana' }, types, ...statuses, limit: options.limit })).items;
}

export const EXTRACT = 'durable memories';
export const CONSOLIDATE = 'memory store consistent';

/** A fact the scripted extractor answers, citing the turn that contains `turn`. */
export interface ScriptedFact {
  text: string;
  /** A substring of the source turn's text. */
  turn: string;
  key: string | null;
  kind?: string;
  when?: string | null;
  confidence?: number;
}

/** An extraction rule: for the window whose prompt contains `whenPrompt`, answer these facts. */
export function extractionRule(name: string, whenPrompt: string, facts: ScriptedFact[], times?: number): ScriptRule {
  return {
    name,
    times,
    match: (r: ScriptedRequest) => r.prompt.includes(EXTRACT) && r.prompt.includes(whenPrompt),
    reply: ({ prompt }) => ({
      content: {
        memories: facts.map((f) => ({
          text: f.text,
          kind: f.kind ?? 'user_fact',
          key: f.key,
          tags: [],
          confidence: f.confidence ?? 0.9,
          turns: [handleOf(prompt, JSON.stringify(f.turn).slice(1, -1), 't')],
          when: f.when ?? null,
        })),
      },
    }),
  };
}

/** A decision the scripted consolidator answers: `candidate` and `target` are texts it finds the handles of. */
export interface ScriptedDecision {
  candidate: string;
  action: 'ADD' | 'UPDATE' | 'SUPERSEDE' | 'NOOP';
  /** Text of the existing memory acted on. */
  target?: string;
  text?: string;
}

/** A consolidation rule for the batch whose prompt contains `whenPrompt`. */
export function consolidationRule(name: string, whenPrompt: string, decisions: ScriptedDecision[]): ScriptRule {
  return {
    name,
    match: (r: ScriptedRequest) => r.prompt.includes(CONSOLIDATE) && r.prompt.includes(whenPrompt),
    reply: ({ prompt }): ScriptedReply => ({
      content: {
        decisions: decisions.map((d) => ({
          candidate: handleOf(prompt, `"${d.candidate}`, 'c'),
          action: d.action,
          target: d.target ? handleOf(prompt, `"${d.target}"`, 'm') : null,
          text: d.text ?? null,
        })),
      },
    }),
  };
}

/** Texts of a recall's hits, best first. */
export async function recalled(
  engram: Engram,
  query: string,
  options: Record<string, unknown> = {},
): Promise<string[]> {
  const result = await engram.recall(query, {
    scope: { tenant: 't', user: 'ana' },
    threshold: -1,
    limit: 10,
    ...options,
  });
  return result.hits.map((h) => h.memory.text);
}

/**
 * The formation commands as a user runs them (`bin/engram` through tsx, a SQLite file, a real
 * OpenAI-compatible embeddings endpoint and the scripted LLM as ENGRAM_LLM): `engram remember`
 * stores a JSONL transcript and waits for its facts, `--no-wait` leaves them to `engram formation
 * run`, `engram recall --as-of / --include-superseded`, `engram history`, `engram formation status`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';
import { consolidationRule, extractionRule } from '../formation/support/formation-fixture.js';
import { startScriptedLlm, type ScriptedLlmServer } from '../formation/support/scripted-llm-server.js';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');

let dir: string;
let embeddings: LocalHttpServer;
let llm: ScriptedLlmServer;

function engram(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [BIN, '--store', join(dir, 'cli.db'), '--embedder', 'http:model-a', '--user', 'ana', ...args],
      {
        env: {
          ...process.env,
          ENGRAM_EMBEDDER_BASE_URL: embeddings.url,
          ENGRAM_LLM: 'openai:gpt-test',
          ENGRAM_LLM_BASE_URL: llm.openaiBaseUrl,
          ENGRAM_LLM_API_KEY: 'sk-test',
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-formation-cli-'));
  const embedder = new HashedEmbedder({ dim: 64, model: 'model-a' });
  embeddings = await startLocalServer(async (request) => {
    const vectors = await embedder.embed((request.body as { input: string[] }).input);
    return {
      json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) },
    };
  });
  llm = await startScriptedLlm({
    rules: [
      extractionRule('first', 'Lisbon', [{ text: 'Ana lives in Lisbon', turn: 'Lisbon', key: 'user.residence' }]),
      extractionRule('second', 'Berlin', [{ text: 'Ana moved to Berlin', turn: 'Berlin', key: 'user.residence' }]),
      consolidationRule('supersede', 'Berlin', [
        { candidate: 'Ana moved to Berlin', action: 'SUPERSEDE', target: 'Ana lives in Lisbon' },
      ]),
      { name: 'nothing', match: 'durable memories', reply: { content: { memories: [] } } },
    ],
  });
  const line = (session: string, text: string, at: string) =>
    JSON.stringify({ role: 'user', speaker: 'Ana', session, text, occurredAt: at });
  await writeFile(
    join(dir, 's1.jsonl'),
    `${line('s1', 'I live in Lisbon.', '2024-05-10T09:00:00Z')}\n{"role":"assistant","session":"s1","text":"Nice!"}\n`,
  );
  await writeFile(join(dir, 's2.jsonl'), `${line('s2', 'I moved to Berlin.', '2026-03-04T10:00:00Z')}\n`);
  await writeFile(
    join(dir, 'bad.jsonl'),
    `${line('s3', 'fine', '2026-03-04T10:00:00Z')}\n{"role":"narrator","text":"x"}\n`,
  );
}, 60_000);

afterAll(async () => {
  await embeddings?.close();
  await llm?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('engram remember, formation and history', { timeout: 180_000 }, () => {
  it('remembers, forms, answers what is valid now and then, and shows a memory’s history', async () => {
    const first = await engram(['remember', join(dir, 's1.jsonl')]);
    expect(first.stderr).toBe('');
    expect(first.stdout).toContain(
      'stored 2 turns (2 new, 0 merged, 0 already recorded); formation: queued, 1 windows',
    );
    expect(first.stdout).toContain('formed: 0 queued, 0 running, 0 retrying, 1 succeeded, 0 dead');

    // --no-wait leaves the window to a worker: `engram formation run --until-idle` forms it.
    const second = await engram(['remember', join(dir, 's2.jsonl'), '--no-wait']);
    expect(second.stdout).toContain('formation: queued, 1 windows');
    const queued = JSON.parse((await engram(['--json', 'formation', 'status'])).stdout) as {
      queue: { counts: Record<string, number> };
    };
    expect(queued.queue.counts).toMatchObject({ queued: 1, succeeded: 1 });
    expect((await engram(['formation', 'run', '--until-idle', '--timeout', '30000'])).code).toBe(0);
    expect((await engram(['formation', 'status'])).stdout).toContain(
      'queue: 0 queued, 0 running, 0 retrying, 2 succeeded, 0 dead',
    );

    const now = JSON.parse(
      (await engram(['--json', 'recall', 'Where does Ana live?', '--types', 'UserMemory'])).stdout,
    ) as {
      hits: Array<{ memory: { id: string; text: string } }>;
    };
    expect(now.hits.map((h) => h.memory.text)).toEqual(['Ana moved to Berlin']);
    const then = JSON.parse(
      (await engram(['--json', 'recall', 'Where does Ana live?', '--types', 'UserMemory', '--as-of', '2025-01-01']))
        .stdout,
    ) as {
      hits: Array<{ memory: { text: string } }>;
    };
    expect(then.hits.map((h) => h.memory.text)).toEqual(['Ana lives in Lisbon']);
    const both = await engram(['recall', 'Where does Ana live?', '--types', 'UserMemory', '--include-superseded']);
    expect(both.stdout).toMatch(/superseded.*Ana lives in Lisbon/);

    const all = JSON.parse((await engram(['--json', 'recall', 'Ana Lisbon', '--include-superseded'])).stdout) as {
      hits: Array<{ memory: { id: string; text: string } }>;
    };
    const lisbon = all.hits.find((h) => h.memory.text === 'Ana lives in Lisbon');
    const history = await engram(['history', lisbon?.memory.id ?? '']);
    // Nothing to compare the first fact with: added without a consolidation call, by the rules.
    expect(history.stdout).toMatch(/created .*formation \(rules\)/);
    expect(history.stdout).toMatch(/superseded .*formation \(llm\)/);
    expect(history.stdout).toContain('2024-05-10 → 2026-03-04 (by');
  });

  it('a bad transcript line is refused with its code and line number, and nothing of it is stored', async () => {
    const bad = await engram(['remember', join(dir, 'bad.jsonl')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error INVALID_INPUT: line 2: messages\[1\]\.role must be one of/);
    const stats = JSON.parse((await engram(['--json', 'stats'])).stdout) as { total: number };
    const fine = await engram(['--json', 'recall', 'fine', '--types', 'WorkingMemory', '--threshold', '0.99']);
    expect((JSON.parse(fine.stdout) as { hits: unknown[] }).hits).toEqual([]);
    expect(stats.total).toBeGreaterThan(0);
  });
});

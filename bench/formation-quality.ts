/**
 * Recall quality with a perfect extractor: LoCoMo dev's `observation` facts fed through the real
 * formation path (remember → queue → worker → consolidation → store) as if an extractor had
 * found them in the turns they cite, against the turns alone, in one run.
 *
 *   npx tsx bench/formation-quality.ts [--data FILE] [--k 5,10,20] [--json]
 *
 * Every variant stores the conversation with `remember` (one call per session; turn text as the
 * turn benches use, `speaker: text`, message id = dia_id, time = the session date) in its own
 * SQLite file:
 * - `turns`                     episodes only (no extractor);
 * - `turns + formed facts`      an extractor that answers each window with the observation facts
 *                               of its turns, the deterministic consolidator (NOOP on near-
 *                               duplicates, no keys so no SUPERSEDE), the default `formedTurns:
 *                               'superseded'` (here the same as `keep`: nothing is superseded);
 * - `formed facts + unformed turns` the same with `formedTurns: 'archive'` (turns a
 *                               fact came from are archived);
 * - `turns + observations added` the observations added as plain memories beside the turns (no
 *                               consolidation), as bench/search-quality.ts measured (R@10 0.704).
 * - `turns imported`           the turns as `engram import` stores them (addMany with the previous
 *                               turn as background), no formation: the reference the turn benches use.
 * Recall over all types, threshold 0; a fact hit counts for the dia_ids of its source turns, in hit
 * order, deduplicated. Questions of categories 1–4 with real evidence turns. Embedder: the offline
 * default, cached in bench/.cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { Engram } from '../src/engram.js';
import type { ExtractorInfo } from '../src/formation/candidate.js';
import type { Extractor } from '../src/formation/extractor.js';
import { finishCandidate } from '../src/formation/finish-candidate.js';
import type { FormationOptions } from '../src/formation/formation-options.js';
import { NO_USAGE } from '../src/formation/llm-usage.js';
import type { EvalCase } from '../src/eval/eval-case.js';
import { evaluate, type EvalReport } from '../src/eval/run-eval.js';
import type { LocomoConversation } from '../src/import/locomo.js';
import type { Memory } from '../src/model/memory.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { openBenchEmbedder } from './lib/bench-embedder.js';
import { LOCOMO_TENANT as TENANT, locomoCases } from './lib/locomo-eval.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import { fmt, markdownTable } from './lib/stats.js';

const DEFAULT_DATA = defaultLocomoData();
const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Variant {
  name: string;
  formation: FormationOptions | null;
  addObservations: boolean;
  /** Store the turns as the LoCoMo importer makes them (`addMany`, with the previous turn as background) instead of `remember`. */
  importTurns?: boolean;
}

/** Where each stored row points: episode id → the dia_ids delivered into it. */
type DiaIndex = Map<string, string[]>;

/** The perfect extractor: each window's turns answered with the observation facts citing them (turns found by their text). */
function observationExtractor(
  diasOfText: (user: string, text: string) => string[],
  factsOf: (user: string) => Map<string, Array<{ text: string; dias: string[] }>>,
): Extractor {
  const info: ExtractorInfo = { name: 'locomo-observations', version: 'o1', method: 'llm' };
  return {
    ...info,
    limits: { maxTurns: 20, maxTokens: 4000 },
    async extract(window) {
      const user = window.scope.user ?? '';
      const facts = factsOf(user);
      const episodeOf = new Map<string, string>();
      for (const turn of window.turns) for (const dia of diasOfText(user, turn.text)) episodeOf.set(dia, turn.id);
      const seen = new Set<string>();
      const candidates = [];
      for (const dia of episodeOf.keys()) {
        for (const fact of facts.get(dia) ?? []) {
          if (seen.has(fact.text)) continue;
          seen.add(fact.text);
          const sources = [...new Set(fact.dias.map((d) => episodeOf.get(d)).filter((id): id is string => !!id))];
          const raw = {
            text: fact.text,
            kind: 'user_fact' as const,
            key: null,
            tags: [],
            confidence: 1,
            sourceTurnIds: sources,
            when: null,
          };
          const done = finishCandidate(raw, candidates.length, window, info, 0);
          if (done.candidate) candidates.push(done.candidate);
        }
      }
      return { extractor: info, candidates, dropped: [], usage: { ...NO_USAGE } };
    },
  };
}

function observationFacts(conv: LocomoConversation): Map<string, Array<{ text: string; dias: string[] }>> {
  const byDia = new Map<string, Array<{ text: string; dias: string[] }>>();
  for (const o of conv.observations) {
    const dias = (o.sources ?? []).map((s) => s.id ?? '').filter((d) => d !== '');
    const first = dias[0];
    if (first === undefined) continue;
    byDia.set(first, [...(byDia.get(first) ?? []), { text: o.text, dias }]);
  }
  return byDia;
}

/** Stores one conversation through `remember`, a call per session; returns episode id → dia_ids. */
async function rememberConversation(engram: Engram, conv: LocomoConversation, user: string): Promise<DiaIndex> {
  const index: DiaIndex = new Map();
  for (const session of conv.sessions) {
    const turns = conv.turns.filter((t) => t.session === session.session);
    const memories = conv.memories.filter((_m, i) => conv.turns[i]?.session === session.session);
    if (turns.length === 0) continue;
    const result = await engram.remember(
      turns.map((t, i) => ({
        role: 'user',
        speaker: t.speaker,
        text: memories[i]?.text ?? t.text,
        session: `session_${t.session}`,
        messageId: t.diaId,
        occurredAt: t.statedAt ?? session.statedAt ?? '2023-01-01T00:00:00Z',
      })),
      { scope: { tenant: TENANT, user } },
    );
    result.turns.forEach((r, i) => index.set(r.id, [...(index.get(r.id) ?? []), turns[i]?.diaId ?? '']));
  }
  return index;
}

/** Stores one conversation's turns as the importer makes them; returns memory id → dia_id. */
async function importConversation(engram: Engram, conv: LocomoConversation, user: string): Promise<DiaIndex> {
  const turns = conv.memories.map((m) => ({ ...m, type: 'LongTermMemory' as const }));
  const stored = await engram.addMany(turns, { scope: { tenant: TENANT, user } });
  return new Map(stored.map((m) => [m.id, [m.key ?? '']]));
}

function diaIdsOf(memories: readonly Memory[], index: DiaIndex): string[] {
  const out: string[] = [];
  for (const m of memories) {
    const own = index.get(m.id);
    const ids = own ?? m.sources.flatMap((s) => (s.id === undefined ? [] : (index.get(s.id) ?? [s.id])));
    for (const id of ids) if (id && !out.includes(id)) out.push(id);
  }
  return out;
}

async function runVariant(
  variant: Variant,
  conversations: LocomoConversation[],
  cases: readonly EvalCase[],
  ks: number[],
  embedder: Awaited<ReturnType<typeof openBenchEmbedder>>,
): Promise<{ report: EvalReport; formed: number; seconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-formation-quality-'));
  const indexes = new Map<string, DiaIndex>();
  const facts = new Map(conversations.map((c) => [c.sampleId, observationFacts(c)]));
  const textDias = new Map<string, Map<string, string[]>>();
  for (const c of conversations) {
    const byText = new Map<string, string[]>();
    c.memories.forEach((m, i) => byText.set(m.text, [...(byText.get(m.text) ?? []), c.turns[i]?.diaId ?? '']));
    textDias.set(c.sampleId, byText);
  }
  const extractor = observationExtractor(
    (user, text) => textDias.get(user)?.get(text) ?? [],
    (user) => facts.get(user) ?? new Map(),
  );
  const engram = await Engram.open({
    store: createSqliteStore({ path: join(dir, 'q.db') }),
    embedder,
    trackUsage: false,
    ownResources: false,
    env: {},
    formation: variant.formation ? { ...variant.formation, extractor } : { worker: false },
  });
  const start = performance.now();
  try {
    for (const conv of conversations) {
      indexes.set(
        conv.sampleId,
        variant.importTurns
          ? await importConversation(engram, conv, conv.sampleId)
          : await rememberConversation(engram, conv, conv.sampleId),
      );
      if (variant.addObservations)
        await engram.addMany(conv.observations, { scope: { tenant: TENANT, user: conv.sampleId } });
    }
    await engram.idle();
    const seconds = (performance.now() - start) / 1000;
    let formed = 0;
    for (const conv of conversations)
      formed += (await engram.stats({ scope: { tenant: TENANT, user: conv.sampleId }, types: ['UserMemory'] })).total;
    const report = await evaluate(
      {
        name: variant.name,
        perK: true,
        async rank(query, scope, k) {
          const result = await engram.recall(query, { scope, limit: k, threshold: 0 });
          const index = indexes.get(scope.user ?? '') as DiaIndex;
          return diaIdsOf(
            result.hits.map((h) => h.memory),
            index,
          ).map((id) => ({ id, key: id, text: '', score: 0 }));
        },
      },
      cases,
      { ks, scope: { tenant: TENANT }, depth: ks[ks.length - 1] },
    );
    return { report, formed, seconds };
  } finally {
    await engram.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'k'], ['json']);
  const data = args.values.get('data') ?? DEFAULT_DATA;
  const ks = parseIntList(args.values.get('k') ?? '5,10,20', 'k').sort((a, b) => a - b);
  const conversations = await readLocomoBench(data);
  const cases = conversations.flatMap(locomoCases);
  const nFacts = conversations.reduce((n, c) => n + c.observations.length, 0);
  log(
    `${data}: ${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.turns.length, 0)} turns, ${nFacts} observation facts`,
  );
  const embedder = await openBenchEmbedder();
  const variants: Variant[] = [
    { name: 'turns', formation: null, addObservations: false },
    { name: 'turns + formed facts', formation: {}, addObservations: false },
    { name: 'formed facts + unformed turns', formation: { formedTurns: 'archive' }, addObservations: false },
    { name: 'turns + observations added', formation: null, addObservations: true },
    { name: 'turns imported (addMany, background)', formation: null, addObservations: false, importTurns: true },
  ];
  const results = [];
  try {
    for (const variant of variants) {
      const run = await runVariant(variant, conversations, cases, ks, embedder);
      log(`${variant.name}: ${run.formed} facts formed, stored and formed in ${run.seconds.toFixed(1)} s`);
      results.push({ variant, ...run });
    }
  } finally {
    await embedder.close?.();
  }
  if (args.flags.has('json')) {
    const out = Object.fromEntries(
      results.map((r) => [
        r.variant.name,
        {
          formed: r.formed,
          ...Object.fromEntries(
            ks.map((k) => [k, { recall: r.report.overall.recall[k], hit: r.report.overall.hit[k] }]),
          ),
        },
      ]),
    );
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const header = ['variant', ...ks.flatMap((k) => [`R@${k}`, `H@${k}`]), 'facts formed'];
  const rows = results.map((r) => [
    r.variant.name,
    ...ks.flatMap((k) => [fmt(r.report.overall.recall[k]), fmt(r.report.overall.hit[k])]),
    String(r.formed),
  ]);
  process.stdout.write(`${markdownTable(header, rows)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

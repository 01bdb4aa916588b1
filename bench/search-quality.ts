/**
 * Searcher quality on LoCoMo (default: ../shared/data/locomo-dev.json): fast-mode multi-path
 * search against the core recall it builds on, on turns and on the dataset's observation facts.
 *
 *   npx tsx bench/search-quality.ts [--data FILE] [--k 5,10,20] [--methods a,b] [--json]
 *
 * Turns: one LongTermMemory per turn (key = dia_id), each conversation in its own scope.
 * Facts: the `observation` facts as LongTermMemory (level fact) with their turns as sources, in a
 * separate scope; a fact hit counts for the dia_ids it is sourced from (in hit order, deduplicated).
 * Questions of categories 1–4 whose evidence names real turns. Threshold 0 for recall, none for
 * search: this measures ranking. Embedder: the offline default (USE lite), cached in bench/.cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { Engram } from '../src/engram.js';
import { defaultLocomoData, readLocomoBench, LOCOMO_CATEGORY_NAMES, type LocomoCategory } from './lib/locomo-questions.js';
import type { Memory } from '../src/model/memory.js';
import type { SearchOptions } from '../src/model/search-options.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { openBenchEmbedder } from './lib/bench-embedder.js';
import { evalQuestions, ScoreBoard, scoreCut, type EvalQuestion } from './lib/locomo-eval.js';
import { fmt, markdownTable } from './lib/stats.js';

const DEFAULT_DATA = defaultLocomoData();
const TENANT = 'bench';

type Corpus = 'turns' | 'facts' | 'mixed';

interface Method {
  name: string;
  corpus: Corpus;
  description: string;
  run(engram: Engram, scopeUser: string, query: string, k: number): Promise<Memory[]>;
}

function diaIdsOf(memories: readonly Memory[], corpus: Corpus): string[] {
  const out: string[] = [];
  for (const m of memories) {
    const isFact = corpus === 'facts' || (corpus === 'mixed' && m.level === 'fact');
    const ids = isFact ? m.sources.map((s) => s.id ?? '') : [m.key ?? ''];
    for (const id of ids) if (id && !out.includes(id)) out.push(id);
  }
  return out;
}

function searchMethod(name: string, corpus: Corpus, description: string, extra: Partial<SearchOptions>): Method {
  return {
    name,
    corpus,
    description,
    async run(engram, user, query, k) {
      const result = await engram.search(query, { scope: { tenant: TENANT, user }, topK: k, types: ['LongTermMemory'], ...extra });
      return result.hits.map((h) => h.memory);
    },
  };
}

function recallMethod(name: string, corpus: Corpus, description: string): Method {
  return {
    name,
    corpus,
    description,
    async run(engram, user, query, k) {
      const result = await engram.recall(query, { scope: { tenant: TENANT, user }, limit: k, threshold: 0 });
      return result.hits.map((h) => h.memory);
    },
  };
}

const METHODS: Method[] = [
  recallMethod('recall', 'turns', 'core recall (profile engram): dense pool + corpus lexical + pool BM25 fusion'),
  searchMethod('search-fast', 'turns', 'fast search, default paths (long-term: dense + graph + BM25 in one pool), noop reranker', {}),
  searchMethod('search-fast+fulltext', 'turns', 'fast search with the full-text channel inside the long-term path', { fulltext: true }),
  searchMethod('search-fast+keyword', 'turns', 'fast search plus the opt-in keyword path (full-text ranked in its own pool)', { paths: ['long-term', 'keyword'] }),
  searchMethod('search-fast-cosine', 'turns', 'fast search, cosine-local reranker (cosine only, level weights 1)', { reranker: 'cosine-local' }),
  recallMethod('recall-facts', 'facts', 'core recall over observation facts'),
  searchMethod('search-fast-facts', 'facts', 'fast search over observation facts', {}),
  recallMethod('recall-mixed', 'mixed', 'core recall over turns and facts in one scope (a fact counts for its source turns)'),
  searchMethod('search-fast-mixed', 'mixed', 'fast search over turns and facts in one scope', {}),
];

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'k', 'methods'], ['json']);
  const only = args.values.get('methods')?.split(',').map((m) => m.trim());
  const methods = only ? METHODS.filter((m) => only.includes(m.name)) : METHODS;
  const data = args.values.get('data') ?? DEFAULT_DATA;
  const ks = parseIntList(args.values.get('k') ?? '5,10,20', 'k').sort((a, b) => a - b);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);

  const conversations = await readLocomoBench(data);
  const questions = new Map<string, EvalQuestion[]>(conversations.map((c) => [c.sampleId, evalQuestions(c)]));
  const nQuestions = [...questions.values()].reduce((n, qs) => n + qs.length, 0);
  const nFacts = conversations.reduce((n, c) => n + c.observations.length, 0);
  log(`${data}: ${conversations.length} conversations, ${nQuestions} questions scored, ${nFacts} observation facts`);

  const embedder = await openBenchEmbedder();
  const t0 = performance.now();
  await embedder.embed(conversations.flatMap((c) => [...c.memories, ...c.observations].map((m) => m.text).concat((questions.get(c.sampleId) ?? []).map((q) => q.question))));
  log(`embedded corpus and questions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const dir = mkdtempSync(join(tmpdir(), 'engram-search-quality-'));
  const store = createSqliteStore({ path: join(dir, 'q.db') });
  const engram = await Engram.open({ store, embedder, trackUsage: false, ownResources: false });
  try {
    for (const conv of conversations) {
      await engram.addMany(conv.memories.map((m) => ({ ...m, type: 'LongTermMemory' as const })), { scope: { tenant: TENANT, user: conv.sampleId } });
      if (conv.observations.length > 0) await engram.addMany(conv.observations, { scope: { tenant: TENANT, user: `${conv.sampleId}:facts` } });
      const mixed = [...conv.memories.map((m) => ({ ...m, type: 'LongTermMemory' as const })), ...conv.observations];
      await engram.addMany(mixed, { scope: { tenant: TENANT, user: `${conv.sampleId}:mixed` } });
    }
    const boards = new Map<string, { board: ScoreBoard; ms: number; n: number }>();
    for (const method of methods) {
      const board = new ScoreBoard(ks);
      let ms = 0;
      let n = 0;
      for (const conv of conversations) {
        const user = method.corpus === 'turns' ? conv.sampleId : `${conv.sampleId}:${method.corpus}`;
        for (const q of questions.get(conv.sampleId) ?? []) {
          for (const k of ks) {
            const start = performance.now();
            const memories = await method.run(engram, user, q.question, k);
            ms += performance.now() - start;
            n++;
            board.add(q.category, k, scoreCut(diaIdsOf(memories, method.corpus), q.gold, k));
          }
        }
      }
      boards.set(method.name, { board, ms, n });
      log(`${method.name}: done (${(ms / n).toFixed(1)} ms/search)`);
    }
    if (args.flags.has('json')) {
      const out: Record<string, unknown> = {};
      for (const [name, { board, ms, n }] of boards) {
        out[name] = { msPerSearch: ms / n, ...Object.fromEntries(ks.map((k) => [k, board.get('all', k)])) };
      }
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return;
    }
    const header = ['method', ...ks.flatMap((k) => [`R@${k}`, `H@${k}`, `S@${k}`]), 'ms/search'];
    const rows = methods.map((m) => {
      const { board, ms, n } = boards.get(m.name) as { board: ScoreBoard; ms: number; n: number };
      return [m.name, ...ks.flatMap((k) => { const s = board.get('all', k); return [fmt(s.recall), fmt(s.hit), fmt(s.sessionRecall)]; }), fmt(ms / n, 1)];
    });
    process.stdout.write(`${markdownTable(header, rows)}\n\n`);
    const k = ks[Math.min(1, ks.length - 1)] as number;
    const catHeader = ['method', ...([1, 2, 3, 4] as LocomoCategory[]).map((c) => `R@${k} ${LOCOMO_CATEGORY_NAMES[c]}`)];
    const catRows = methods.map((m) => [m.name, ...([1, 2, 3, 4] as LocomoCategory[]).map((c) => fmt(boards.get(m.name)?.board.get(c, k).recall))]);
    process.stdout.write(`${markdownTable(catHeader, catRows)}\n\n`);
    for (const m of methods) process.stdout.write(`- ${m.name}: ${m.description}\n`);
  } finally {
    await engram.close();
    await store.close();
    await embedder.close?.();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

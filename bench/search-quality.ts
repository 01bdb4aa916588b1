/**
 * Searcher quality on LoCoMo (default: ../shared/data/locomo-dev.json): fast-mode multi-path
 * search against the core recall it builds on, on turns and on the dataset's observation facts.
 *
 *   npx tsx bench/search-quality.ts [--data FILE] [--k 5,10,20] [--methods a,b] [--baseline DIR] [--json]
 *
 * `--baseline DIR`: every search also runs the `Searcher` of another checkout on the same store
 * and question; the report says for how many the two gave the same hits, order, scores and
 * explanations (ms/search then counts both).
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
import {
  defaultLocomoData,
  readLocomoBench,
  LOCOMO_CATEGORY_NAMES,
  type LocomoBenchConversation,
  type LocomoCategory,
} from './lib/locomo-questions.js';
import type { EvalRanker } from '../src/eval/eval-ranker.js';
import { evaluate, type EvalReport } from '../src/eval/run-eval.js';
import type { Memory } from '../src/model/memory.js';
import type { Scope } from '../src/model/scope.js';
import type { SearchOptions } from '../src/model/search-options.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { baselineSearch, sameHits, type SearchFn } from './lib/baseline-searcher.js';
import { openBenchEmbedder } from './lib/bench-embedder.js';
import { LOCOMO_TENANT, locomoCases, sessionRecall } from './lib/locomo-eval.js';
import { fmt, markdownTable } from './lib/stats.js';

const DEFAULT_DATA = defaultLocomoData();

type Corpus = 'turns' | 'facts' | 'mixed';

interface Method {
  name: string;
  corpus: Corpus;
  description: string;
  run(engram: Engram, scope: Scope, query: string, k: number): Promise<Memory[]>;
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

/** With `--baseline`: the other checkout's search, and per method how many searches it agreed with. */
interface BaselineCheck {
  search: SearchFn;
  same: Map<string, number>;
  total: Map<string, number>;
}
let baseline: BaselineCheck | null = null;

function searchMethod(name: string, corpus: Corpus, description: string, extra: Partial<SearchOptions>): Method {
  return {
    name,
    corpus,
    description,
    async run(engram, scope, query, k) {
      const options: SearchOptions = { scope, topK: k, types: ['LongTermMemory'], ...extra };
      const result = await engram.search(query, options);
      if (baseline !== null) {
        const agreed = sameHits(result, await baseline.search(query, options)) ? 1 : 0;
        baseline.same.set(name, (baseline.same.get(name) ?? 0) + agreed);
        baseline.total.set(name, (baseline.total.get(name) ?? 0) + 1);
      }
      return result.hits.map((h) => h.memory);
    },
  };
}

function recallMethod(name: string, corpus: Corpus, description: string): Method {
  return {
    name,
    corpus,
    description,
    async run(engram, scope, query, k) {
      const result = await engram.recall(query, { scope, limit: k, threshold: 0 });
      return result.hits.map((h) => h.memory);
    },
  };
}

/**
 * A method as an evaluation ranker: the case's conversation scope (turns, facts or both), each hit
 * turned into the dia_ids it stands for (a fact counts for its source turns, in hit order).
 */
function methodRanker(engram: Engram, method: Method): EvalRanker {
  return {
    name: method.name,
    perK: true,
    async rank(query, scope, k) {
      const user = method.corpus === 'turns' ? scope.user : `${scope.user ?? ''}:${method.corpus}`;
      const memories = await method.run(engram, { ...scope, user }, query, k);
      return diaIdsOf(memories, method.corpus).map((id) => ({ id, key: id, text: '', score: 0 }));
    },
  };
}

const METHODS: Method[] = [
  recallMethod('recall', 'turns', 'core recall (profile engram): dense pool + corpus lexical + pool BM25 fusion'),
  searchMethod(
    'search-fast',
    'turns',
    'fast search, default paths (long-term: dense + graph + BM25 in one pool), noop reranker',
    {},
  ),
  searchMethod('search-fast+fulltext', 'turns', 'fast search with the full-text channel inside the long-term path', {
    fulltext: true,
  }),
  searchMethod(
    'search-fast+keyword',
    'turns',
    'fast search plus the opt-in keyword path (full-text ranked in its own pool)',
    { paths: ['long-term', 'keyword'] },
  ),
  searchMethod('search-fast-cosine', 'turns', 'fast search, cosine-local reranker (cosine only, level weights 1)', {
    reranker: 'cosine-local',
  }),
  recallMethod('recall-facts', 'facts', 'core recall over observation facts'),
  searchMethod('search-fast-facts', 'facts', 'fast search over observation facts', {}),
  recallMethod(
    'recall-mixed',
    'mixed',
    'core recall over turns and facts in one scope (a fact counts for its source turns)',
  ),
  searchMethod('search-fast-mixed', 'mixed', 'fast search over turns and facts in one scope', {}),
];

/** Each conversation three times: its turns, its observation facts, and both in one scope. */
async function load(engram: Engram, conversations: readonly LocomoBenchConversation[]): Promise<void> {
  for (const conv of conversations) {
    const turns = conv.memories.map((m) => ({ ...m, type: 'LongTermMemory' as const }));
    await engram.addMany(turns, { scope: { tenant: LOCOMO_TENANT, user: conv.sampleId } });
    if (conv.observations.length > 0) {
      await engram.addMany(conv.observations, { scope: { tenant: LOCOMO_TENANT, user: `${conv.sampleId}:facts` } });
    }
    await engram.addMany([...turns, ...conv.observations], {
      scope: { tenant: LOCOMO_TENANT, user: `${conv.sampleId}:mixed` },
    });
  }
}

function asJson(boards: ReadonlyMap<string, EvalReport>, ks: readonly number[]): string {
  const out: Record<string, unknown> = {};
  for (const [name, r] of boards) {
    const byK = ks.map((k) => [
      k,
      {
        n: r.overall.n,
        recall: r.overall.recall[k],
        hit: r.overall.hit[k],
        sessionRecall: r.overall.extra['sessionRecall']?.[k],
      },
    ]);
    out[name] = { msPerSearch: r.msPerQuery, ...Object.fromEntries(byK) };
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

function asMarkdown(
  boards: ReadonlyMap<string, EvalReport>,
  methods: readonly Method[],
  ks: readonly number[],
): string {
  const header = ['method', ...ks.flatMap((k) => [`R@${k}`, `H@${k}`, `S@${k}`]), 'ms/search'];
  const rows = methods.map((m) => {
    const r = boards.get(m.name) as EvalReport;
    const cells = ks.flatMap((k) => [
      fmt(r.overall.recall[k]),
      fmt(r.overall.hit[k]),
      fmt(r.overall.extra['sessionRecall']?.[k]),
    ]);
    return [m.name, ...cells, fmt(r.msPerQuery, 1)];
  });
  const k = ks[Math.min(1, ks.length - 1)] as number;
  const categories = ([1, 2, 3, 4] as LocomoCategory[]).map((c) => LOCOMO_CATEGORY_NAMES[c]);
  const catRows = methods.map((m) => [
    m.name,
    ...categories.map((c) => fmt(boards.get(m.name)?.byCategory[c]?.recall[k])),
  ]);
  return [
    markdownTable(header, rows),
    '',
    markdownTable(['method', ...categories.map((c) => `R@${k} ${c}`)], catRows),
    '',
    ...methods.map((m) => `- ${m.name}: ${m.description}`),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'k', 'methods', 'baseline'], ['json']);
  const only = args.values
    .get('methods')
    ?.split(',')
    .map((m) => m.trim());
  const methods = only ? METHODS.filter((m) => only.includes(m.name)) : METHODS;
  const data = args.values.get('data') ?? DEFAULT_DATA;
  const ks = parseIntList(args.values.get('k') ?? '5,10,20', 'k').sort((a, b) => a - b);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);

  const conversations = await readLocomoBench(data);
  const cases = conversations.flatMap(locomoCases);
  const nFacts = conversations.reduce((n, c) => n + c.observations.length, 0);
  log(`${data}: ${conversations.length} conversations, ${cases.length} questions scored, ${nFacts} observation facts`);

  const embedder = await openBenchEmbedder();
  const t0 = performance.now();
  await embedder.embed(
    conversations
      .flatMap((c) => [...c.memories, ...c.observations].map((m) => m.text))
      .concat(cases.map((c) => c.query)),
  );
  log(`embedded corpus and questions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const dir = mkdtempSync(join(tmpdir(), 'engram-search-quality-'));
  const store = createSqliteStore({ path: join(dir, 'q.db') });
  const engram = await Engram.open({ store, embedder, trackUsage: false, ownResources: false });
  try {
    await load(engram, conversations);
    const baselineDir = args.values.get('baseline');
    if (baselineDir !== undefined) {
      baseline = { search: await baselineSearch(baselineDir, store, embedder), same: new Map(), total: new Map() };
    }
    const maxK = ks[ks.length - 1] as number;
    const boards = new Map<string, EvalReport>();
    for (const method of methods) {
      const report = await evaluate(methodRanker(engram, method), cases, {
        ks,
        scope: { tenant: LOCOMO_TENANT },
        depth: maxK,
        extra: { sessionRecall },
      });
      boards.set(method.name, report);
      log(`${method.name}: done (${report.msPerQuery.toFixed(1)} ms/search)`);
    }
    process.stdout.write(args.flags.has('json') ? asJson(boards, ks) : asMarkdown(boards, methods, ks));
    for (const [name, total] of baseline?.total ?? []) {
      const same = baseline?.same.get(name) ?? 0;
      process.stdout.write(`${name}: same hits, order, scores and explanations as ${baselineDir} in ${same} of ${total} searches\n`);
    }
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

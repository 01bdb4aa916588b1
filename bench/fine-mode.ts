/**
 * The searcher's fine mode (LLM planner: keys, tags, rephrasing, expansions; decomposition into
 * sub-questions) on the ranking bench, against the scripted OpenAI-compatible server: a test of
 * behaviour, not a measurement of an LLM. Each script is a way a planner can answer; the table
 * shows what the LLM was asked (requests and prompt size per query), what the answer did to the
 * search (texts embedded, fallbacks) and the figures that follow, beside fast mode in the same run.
 *
 *   npx tsx bench/fine-mode.ts [--data FILE] [--limit N] [--json]
 *
 * `--limit N` takes the first N LoCoMo questions of each conversation (default all).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Engram } from '../src/engram.js';
import type { EvalCase } from '../src/eval/eval-case.js';
import { cutScores, reciprocalRank, summarize, type CaseFigures, type EvalSummary } from '../src/eval/eval-metrics.js';
import { createOpenAICompatibleChat } from '../src/llm/openai-compatible-chat.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import {
  startScriptedLlm,
  type ScriptedReply,
  type ScriptedRequest,
  type ScriptRule,
} from '../test/formation/support/scripted-llm-server.js';
import { parseArgs } from './lib/args.js';
import { openBenchEmbedder } from './lib/bench-embedder.js';
import { LOCOMO_TENANT, locomoCases } from './lib/locomo-eval.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import { listAll } from './lib/ranking-pools.js';
import { loadIndirectCases } from './lib/ranking-score.js';
import { fmt, markdownTable, mean } from './lib/stats.js';

const KS = [5, 10, 20];
const QUESTION_WORDS = new Set([
  'what',
  'when',
  'where',
  'who',
  'whom',
  'which',
  'why',
  'how',
  'did',
  'does',
  'do',
  'is',
  'was',
  'are',
  'the',
  'a',
  'an',
  'of',
  'to',
  'in',
  'for',
  'and',
  'has',
  'have',
]);

/** The user message of a planner or decomposer request: the text after the last `Message:` line. */
function messageOf(request: ScriptedRequest): string {
  const user = request.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  const at = user.lastIndexOf('Message:\n');
  return (at < 0 ? user : user.slice(at + 'Message:\n'.length)).trim();
}

const contentWords = (q: string): string[] =>
  (q.match(/[\p{L}\p{N}']+/gu) ?? []).filter((w) => !QUESTION_WORDS.has(w.toLowerCase()));

const plan = (fields: { keys?: string[]; tags?: string[]; rephrased: string; memories: string[] }): ScriptedReply => ({
  content: {
    keys: fields.keys ?? [],
    tags: fields.tags ?? [],
    rephrased_query: fields.rephrased,
    memories: fields.memories,
    internet_search: false,
    goal_type: 'question',
  },
});

const NOT_COMPLEX: ScriptRule = {
  name: 'decompose',
  match: 'several things at once',
  reply: { content: { is_complex: false, sub_questions: [] } },
};

/** How the scripted planner answers, by script; `gold` gives a query's gold memory texts (oracle only). */
function scripts(gold: (query: string) => string[]): Record<string, { rules: ScriptRule[]; decompose: boolean }> {
  const planner = (name: string, reply: (q: string) => ScriptedReply): ScriptRule => ({
    name,
    match: 'retrieval plan',
    reply: (request) => reply(messageOf(request)),
  });
  return {
    'echo (rephrased = query, one expansion = query)': {
      rules: [planner('plan', (q) => plan({ rephrased: q, memories: [q] }))],
      decompose: false,
    },
    'keywords (keys = names, tags = content words, expansion = content words)': {
      rules: [
        planner('plan', (q) => {
          const words = contentWords(q);
          return plan({
            keys: words.filter((w) => /^\p{Lu}/u.test(w)),
            tags: words.map((w) => w.toLowerCase()).slice(0, 5),
            rephrased: q,
            memories: [words.join(' ') || q],
          });
        }),
      ],
      decompose: false,
    },
    'decomposition (sub-questions split at "and")': {
      rules: [
        planner('plan', (q) => plan({ rephrased: q, memories: [q] })),
        {
          name: 'decompose',
          match: 'several things at once',
          reply: (request) => {
            const parts = messageOf(request)
              .split(/\band\b|,/)
              .map((p) => p.trim())
              .filter((p) => p.length > 3);
            return { content: { is_complex: parts.length > 1, sub_questions: parts.length > 1 ? parts : [] } };
          },
        },
      ],
      decompose: true,
    },
    'oracle (expansions = the gold turns; an upper bound, not a model)': {
      rules: [planner('plan', (q) => plan({ rephrased: q, memories: gold(q).slice(0, 5).concat(q).slice(0, 5) }))],
      decompose: false,
    },
    'broken planner (HTTP 500: falls back to fast)': {
      rules: [{ name: 'plan', match: 'retrieval plan', reply: { fault: 'server-error' } }],
      decompose: false,
    },
    'planner answers without "memories" (invalid: falls back to fast)': {
      rules: [{ name: 'plan', match: 'retrieval plan', reply: { content: { keys: [], rephrased_query: 'x' } } }],
      decompose: false,
    },
  };
}

interface ScriptResult {
  name: string;
  summary: EvalSummary;
  llmRequestsPerQuery: number;
  promptTokensPerQuery: number;
  textsEmbeddedPerQuery: number;
  fellBack: number;
  msPerQuery: number;
}

async function runCases(
  engram: Engram,
  cases: readonly EvalCase[],
  options: { mode: 'fast' | 'fine'; decompose: boolean },
): Promise<{ summary: EvalSummary; texts: number; fellBack: number; ms: number }> {
  const figures: CaseFigures[] = [];
  let texts = 0;
  let fellBack = 0;
  let ms = 0;
  for (const c of cases) {
    const start = performance.now();
    const result = await engram.search(c.query, {
      scope: { tenant: LOCOMO_TENANT, ...c.scope },
      mode: options.mode,
      topK: KS[KS.length - 1],
      threshold: -1,
      decompose: options.decompose,
    });
    ms += performance.now() - start;
    texts += result.plan.queryTexts.length;
    if (options.mode === 'fine' && result.plan.info.mode !== 'fine') fellBack += 1;
    const top = result.hits.map((h) => ({
      id: h.memory.id,
      key: h.memory.key,
      text: h.memory.text,
      score: h.relevance,
    }));
    const f: CaseFigures = { recall: {}, hit: {}, reciprocalRank: reciprocalRank(c.expected, top), extra: {} };
    for (const k of KS) {
      const cut = cutScores(c.expected, top, k);
      f.recall[k] = cut.recall;
      f.hit[k] = cut.hit;
    }
    figures.push(f);
  }
  return { summary: summarize(figures, KS, []), texts: texts / cases.length, fellBack, ms: ms / cases.length };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'limit'], ['json']);
  const data = args.values.get('data') ?? defaultLocomoData();
  const limit = Number(args.values.get('limit') ?? Number.POSITIVE_INFINITY);
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const conversations = await readLocomoBench(data);
  const embedder = openBenchEmbedder();
  const llm = await startScriptedLlm({ rules: [] });
  const dir = mkdtempSync(join(tmpdir(), 'engram-fine-'));
  const store = createSqliteStore({ path: join(dir, 'f.db') });
  const chat = createOpenAICompatibleChat({
    baseUrl: llm.openaiBaseUrl,
    model: 'scripted-planner',
    apiKey: 'k',
    retryBaseMs: 1,
  });
  const engram = await Engram.open({
    store,
    embedder,
    trackUsage: false,
    ownResources: false,
    env: {},
    search: { llm: chat },
  });
  try {
    for (const c of conversations)
      await engram.addMany(c.memories, { scope: { tenant: LOCOMO_TENANT, user: c.sampleId } });
    const indirect = await loadIndirectCases(engram, LOCOMO_TENANT);
    const locomo = conversations.flatMap((c) => locomoCases(c).slice(0, limit));
    const all = await listAll(store, { tenant: LOCOMO_TENANT });
    const textOf = new Map(all.map((m) => [`${m.scope.user ?? ''}|${m.key ?? m.id}`, m.text]));
    const goldByQuery = new Map<string, string[]>();
    for (const c of [...locomo, ...indirect])
      goldByQuery.set(
        c.query,
        c.expected.flatMap((e) => textOf.get(`${c.scope?.user ?? ''}|${e}`) ?? []),
      );
    const sets: Array<[string, EvalCase[]]> = [
      ['LoCoMo dev', locomo],
      ['indirect', indirect],
    ];
    const results: Record<string, ScriptResult[]> = {};
    for (const [setName, cases] of sets) {
      const rows: ScriptResult[] = [];
      const fast = await runCases(engram, cases, { mode: 'fast', decompose: false });
      rows.push({
        name: 'fast mode (no LLM call)',
        summary: fast.summary,
        llmRequestsPerQuery: 0,
        promptTokensPerQuery: 0,
        textsEmbeddedPerQuery: fast.texts,
        fellBack: 0,
        msPerQuery: fast.ms,
      });
      for (const [name, script] of Object.entries(scripts((q) => goldByQuery.get(q) ?? []))) {
        const from = llm.calls.length;
        for (const rule of [...script.rules, NOT_COMPLEX].reverse())
          llm.prepend({ ...rule, name: `${rule.name}@${from}` });
        const run = await runCases(engram, cases, { mode: 'fine', decompose: script.decompose });
        const calls = llm.calls.slice(from);
        rows.push({
          name,
          summary: run.summary,
          llmRequestsPerQuery: calls.length / cases.length,
          promptTokensPerQuery: calls.reduce((a, c) => a + Math.ceil(c.request.prompt.length / 4), 0) / cases.length,
          textsEmbeddedPerQuery: run.texts,
          fellBack: run.fellBack,
          msPerQuery: run.ms,
        });
        log(`${setName} / ${name}: R@10 ${fmt(run.summary.recall[10])}, ${calls.length} LLM calls`);
      }
      results[setName] = rows;
    }
    if (args.flags.has('json')) process.stdout.write(`${JSON.stringify({ data, results }, null, 2)}\n`);
    else {
      for (const [setName, rows] of Object.entries(results)) {
        process.stdout.write(`\n${setName} (${sets.find(([n]) => n === setName)?.[1].length} queries)\n\n`);
        process.stdout.write(
          `${markdownTable(
            [
              'planner',
              ...KS.map((k) => `R@${k}`),
              'MRR',
              'LLM req/q',
              'prompt tok/q',
              'texts embedded/q',
              'fell back',
              'ms/q',
            ],
            rows.map((r) => [
              r.name,
              ...KS.map((k) => fmt(r.summary.recall[k])),
              fmt(r.summary.mrr),
              r.llmRequestsPerQuery.toFixed(2),
              r.promptTokensPerQuery.toFixed(0),
              r.textsEmbeddedPerQuery.toFixed(2),
              String(r.fellBack),
              r.msPerQuery.toFixed(1),
            ]),
          )}\n`,
        );
      }
      process.stdout.write(
        `\nunmatched LLM requests: ${llm.unmatched().length}; mean ms/q of fast mode ${fmt(mean(Object.values(results).map((r) => r[0]?.msPerQuery ?? 0)), 1)}\n`,
      );
    }
  } finally {
    await engram.close();
    await store.close();
    await embedder.close?.();
    await llm.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * Formation cost and throughput: LLM calls and prompt/completion tokens per 1,000 LoCoMo turns,
 * and turns formed per second, through the whole path (remember → queue → worker → store) with
 * the project's own chat clients against the scripted LLM server on 127.0.0.1.
 *
 *   npx tsx bench/formation-cost.ts [--turns 1000] [--latency-ms 300] [--concurrency 2,8] [--provider openai|anthropic] [--json]
 *
 * The first `--turns` turns of LoCoMo dev (whole sessions, in order) are remembered one session
 * per call into SQLite. The scripted server answers every extraction with the observation facts
 * of the window's turns (found by their text) and every consolidation by deciding NOOP for a
 * candidate whose text equals one of its listed memories, ADD otherwise; each answer waits
 * `--latency-ms`. Tokens are the server's usage fields (about 4 characters per token, the
 * scripted server's count of the real prompts). Goals: ≤ 1 extraction call per 10 turns, ≤ 1
 * consolidation call per extraction call. Throughput: turns / (first remember → idle), per
 * worker concurrency; the embedder is the hashed test embedder so that the figure is formation's.
 */
import { performance } from 'node:perf_hooks';

import { summarizeCost, type WindowCost } from '../src/formation/cost-report.js';
import { readLocomoFile, type LocomoTurn } from '../src/import/locomo.js';
import { chatFor, type Provider } from '../test/formation/support/chat-for.js';
import type { ScriptedRequest, ScriptedReply } from '../test/formation/support/scripted-llm-server.js';
import { HashedEmbedder } from '../test/support/hashed-embedder.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { defaultLocomoData } from './lib/locomo-questions.js';
import { consolidateByMatch, scriptedFact, startScriptedFormation } from './lib/scripted-formation.js';
import { openTempSqliteEngram } from './lib/temp-sqlite-engram.js';
import { fmt, markdownTable } from './lib/stats.js';

const DEFAULT_DATA = defaultLocomoData();
const log = (line: string): void => void process.stderr.write(`${line}\n`);

interface Corpus {
  sessions: Array<{ user: string; turns: LocomoTurn[]; texts: string[] }>;
  /** Turn text → observation facts of that turn. */
  factsOfText: Map<string, string[]>;
  turns: number;
}

async function corpus(data: string, limit: number): Promise<Corpus> {
  const conversations = await readLocomoFile(data);
  const sessions: Corpus['sessions'] = [];
  const factsOfText = new Map<string, string[]>();
  let turns = 0;
  for (const conv of conversations) {
    const textOf = new Map(conv.turns.map((t, i) => [t.diaId, conv.memories[i]?.text ?? t.text]));
    for (const o of conv.observations) {
      const first = o.sources?.[0]?.id;
      const text = first === undefined ? undefined : textOf.get(first);
      if (text !== undefined) factsOfText.set(text, [...(factsOfText.get(text) ?? []), o.text]);
    }
    for (const s of conv.sessions) {
      if (turns >= limit) break;
      const own = conv.turns.filter((t) => t.session === s.session);
      sessions.push({ user: conv.sampleId, turns: own, texts: own.map((t) => textOf.get(t.diaId) ?? t.text) });
      turns += own.length;
    }
  }
  return { sessions, factsOfText, turns };
}

/** `[t3] 2023-05-08T13:56Z user (Ana): "text"` → handle and text. */
function promptTurns(prompt: string): Array<{ handle: string; text: string }> {
  const out: Array<{ handle: string; text: string }> = [];
  for (const m of prompt.matchAll(/^\[(t\d+)\] \S+ [^:]*?: (".*")$/gm)) {
    try {
      out.push({ handle: m[1] as string, text: JSON.parse(m[2] as string) as string });
    } catch {
      // not a turn line
    }
  }
  return out;
}

function extraction(c: Corpus, request: ScriptedRequest): ScriptedReply {
  const memories = promptTurns(request.prompt).flatMap(({ handle, text }) =>
    (c.factsOfText.get(text) ?? []).map((fact) => scriptedFact(fact, handle, 'user_fact', null)),
  );
  return { content: { memories } };
}

/** NOOP against a listed memory of the candidate's text, else ADD. */
function consolidation(request: ScriptedRequest): ScriptedReply {
  return consolidateByMatch(request.prompt, 'NOOP', (c, m) => JSON.parse(m.quoted) === JSON.parse(c.quoted));
}

async function run(c: Corpus, provider: Provider, latencyMs: number, concurrency: number) {
  const server = await startScriptedFormation({
    latencyMs,
    extract: (r) => extraction(c, r),
    consolidate: (r) => consolidation(r),
  });
  const { engram, dispose } = await openTempSqliteEngram('engram-formation-cost-', 'cost.db', {
    embedder: new HashedEmbedder({ dim: 256 }),
    env: {},
    trackUsage: false,
    formation: {
      llm: chatFor(provider, server, { timeoutMs: 30_000 }),
      worker: { concurrency, pollMs: 50 },
      formedTurns: 'keep',
    },
  });
  try {
    const start = performance.now();
    for (const s of c.sessions) {
      await engram.remember(
        s.turns.map((t, i) => ({
          role: 'user',
          speaker: t.speaker,
          text: s.texts[i],
          session: `session_${t.session}`,
          messageId: t.diaId,
          occurredAt: t.statedAt ?? '2023-01-01T00:00:00Z',
        })),
        { scope: { tenant: 'bench', user: s.user } },
      );
    }
    await engram.idle();
    const seconds = (performance.now() - start) / 1000;
    const costs: WindowCost[] = [];
    let cursor: string | undefined;
    do {
      // The queue is listed per tenant: every user's jobs at once.
      const page = await engram.formationJobs({
        scope: { tenant: 'bench' },
        states: ['succeeded'],
        limit: 500,
        cursor,
      });
      for (const job of page.items) if (job.result) costs.push({ turns: job.episodeIds.length, ...job.result });
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    const dead = (await engram.formationStatus({ scope: { tenant: 'bench' } })).queue.counts.dead;
    return {
      report: summarizeCost(costs),
      seconds,
      httpCalls: server.calls.length,
      unmatched: server.unmatched().length,
      dead,
    };
  } finally {
    await dispose();
    await server.close();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['data', 'turns', 'latency-ms', 'concurrency', 'provider'], ['json']);
  const data = args.values.get('data') ?? DEFAULT_DATA;
  const limit = parseIntList(args.values.get('turns') ?? '1000', 'turns')[0] as number;
  const latencyMs = parseIntList(args.values.get('latency-ms') ?? '300', 'latency-ms')[0] as number;
  const concurrencies = parseIntList(args.values.get('concurrency') ?? '2,8', 'concurrency');
  const provider = (args.values.get('provider') ?? 'openai') as Provider;
  const c = await corpus(data, limit);
  log(
    `${c.turns} LoCoMo turns in ${c.sessions.length} sessions; scripted server at ${latencyMs} ms per call (${provider})`,
  );
  const runs = [];
  for (const concurrency of concurrencies) {
    const r = await run(c, provider, latencyMs, concurrency);
    log(
      `concurrency ${concurrency}: ${r.seconds.toFixed(1)} s, ${r.httpCalls} HTTP calls, ${r.unmatched} unmatched, ${r.dead} dead`,
    );
    runs.push({ concurrency, ...r });
  }
  if (args.flags.has('json')) {
    process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    return;
  }
  const first = runs[0]?.report;
  if (first) {
    const p = first.per1000Turns;
    process.stdout.write(
      `${markdownTable(
        [
          'turns',
          'windows',
          'extraction calls / 1k turns',
          'consolidation calls / 1k turns',
          'prompt tokens / 1k turns',
          'completion tokens / 1k turns',
          'extraction calls / 10 turns',
          'consolidation / extraction',
          'goals met',
        ],
        [
          [
            String(first.turns),
            String(first.windows),
            fmt(p.extractionCalls, 1),
            fmt(p.consolidationCalls, 1),
            fmt(p.inputTokens, 0),
            fmt(p.outputTokens, 0),
            fmt(first.extractionCallsPer10Turns, 3),
            fmt(first.consolidationCallsPerExtractionCall ?? 0, 3),
            String(first.meetsGoals),
          ],
        ],
      )}\n\n`,
    );
  }
  process.stdout.write(
    `${markdownTable(
      ['worker concurrency', 'seconds', 'turns / s', 'HTTP calls'],
      runs.map((r) => [
        String(r.concurrency),
        fmt(r.seconds, 1),
        fmt(r.report.turns / r.seconds, 1),
        String(r.httpCalls),
      ]),
    )}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

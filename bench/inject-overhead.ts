/**
 * Added latency of a wrapped LLM call against the unwrapped call to the same local server.
 *
 *   npx tsx bench/inject-overhead.ts [--size 10000] [--calls 200] [--recaller engram|fixed] [--budget-ms 250] [--data FILE] [--json]
 *
 * The server is a node:http OpenAI-compatible chat endpoint on 127.0.0.1 that answers at once,
 * so every difference between the rows is the wrapper's own cost. Each call i sends LoCoMo
 * question i as the user message; the variants are interleaved call by call (same question,
 * same moment) so drift affects them alike:
 *
 * - `unwrapped`              the official `openai` client, as is;
 * - `wrapped, recall off`    `wrapOpenAI(client, { recall: false })`;
 * - `wrapped, fixed hits`    a recaller that returns 5 fixed memories at once (wrapper + block + injection only);
 * - `wrapped, Engram`        the real facade over SQLite with `--size` memories in one scope and the
 *                            default embedder (USE-lite) embedding each query: query embedding +
 *                            recall + block + injection.
 *
 * Corpus: LoCoMo turns with their real USE-lite vectors (bench embedding cache), repeated with
 * variations up to `--size` (bench/lib/synthetic-corpus.ts), all in one scope.
 * `--recaller fixed` skips the Engram variant (no corpus, no model load).
 */
import { cpus, loadavg } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import OpenAI from 'openai';

import type { RecallOptions, RecallResult } from '../src/model/api.js';
import { Engram } from '../src/engram.js';
import { defaultLocomoData, readLocomoBench } from './lib/locomo-questions.js';
import { formatContextBlock } from '../src/inject/context-block.js';
import type { InjectEvent } from '../src/inject/inject-event.js';
import type { Recaller } from '../src/inject/recaller.js';
import { wrapOpenAI } from '../src/inject/wrappers/openai.js';
import type { Hit } from '../src/model/hit.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { lookupEmbedder, openBenchEmbedder, openRawEmbedder } from './lib/bench-embedder.js';
import { fmt, markdownTable, mean, percentile } from './lib/stats.js';
import { buildCorpus } from './lib/synthetic-corpus.js';

const DEFAULT_DATA = defaultLocomoData();
const SCOPE = { tenant: 'bench', user: 'inject' };
const REPLY = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A recaller that returns the same hits at once: isolates the wrapper and injection cost. */
function fixedRecaller(hits: Hit[]): Recaller {
  return {
    async recall(query: string, _options: RecallOptions): Promise<RecallResult> {
      return {
        query,
        hits,
        cut: [],
        withheld: [],
        poolSize: hits.length,
        timings: { embedMs: 0, denseMs: 0, lexicalMs: 0, rankMs: 0, totalMs: 0 },
      };
    },
  };
}

interface Variant {
  name: string;
  client: OpenAI;
  /** Turns the user message into the request this variant sends. */
  request?: (content: string) => OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  times: number[];
  events: InjectEvent[];
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['size', 'calls', 'recaller', 'budget-ms', 'data'], ['json']);
  const size = parseIntList(args.values.get('size') ?? '10000', 'size')[0] as number;
  const calls = parseIntList(args.values.get('calls') ?? '200', 'calls')[0] as number;
  const budgetMs = parseIntList(args.values.get('budget-ms') ?? '250', 'budget-ms')[0] as number;
  const recallerKind = args.values.get('recaller') ?? 'engram';
  const data = args.values.get('data') ?? DEFAULT_DATA;
  const loadAtStart = loadavg()[0] ?? 0;

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(REPLY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new OpenAI({ apiKey: 'bench', baseURL, maxRetries: 0 });

  const conversations = await readLocomoBench(data);
  const questions = [
    ...new Set(conversations.flatMap((c) => c.questions.filter((q) => q.category <= 4).map((q) => q.question))),
  ];
  const baseTexts = [...new Set(conversations.flatMap((c) => c.memories.map((m) => m.text)))];

  const variants: Variant[] = [];
  const add = (name: string, c: OpenAI, events: InjectEvent[] = [], request?: Variant['request']): void =>
    void variants.push({ name, client: c, times: [], events, request });
  add('unwrapped', client);
  add('wrapped, recall off', wrapOpenAI(client, { recall: false, scope: SCOPE }));

  const now = new Date().toISOString();
  const fixedHits: Hit[] = baseTexts.slice(0, 5).map((text, i) => ({
    memory: {
      id: `f${i}`,
      text,
      type: 'LongTermMemory',
      key: null,
      tags: [],
      level: null,
      summary: null,
      background: null,
      sources: [],
      scope: SCOPE,
      metadata: {},
      statedAt: now,
      createdAt: now,
      updatedAt: now,
      status: 'activated',
      usage: { count: 0, lastUsedAt: null },
      embedding: null,
      validFrom: now,
      validTo: null,
      supersededBy: null,
      version: 1,
    },
    score: 0.5,
    explanation: {
      channels: ['dense'],
      cosine: 0.5,
      bm25: 0,
      bm25Raw: 0,
      denseWeight: 0.85,
      lexicalWeight: 0.15,
      fused: 0.5,
    },
  }));
  const fixedBlock = formatContextBlock(fixedHits)?.text ?? '';
  add('unwrapped, block already in the request (same bytes as fixed hits)', client, [], (content) => ({
    model: 'bench',
    messages: [
      { role: 'system', content: fixedBlock },
      { role: 'user', content },
    ],
  }));
  const fixedEvents: InjectEvent[] = [];
  add(
    'wrapped, fixed hits (no recall work)',
    wrapOpenAI(client, { recaller: fixedRecaller(fixedHits), scope: SCOPE, onEvent: (e) => fixedEvents.push(e) }),
    fixedEvents,
  );

  let engram: Engram | null = null;
  const engramEvents: InjectEvent[] = [];
  if (recallerKind === 'engram') {
    const cached = await openBenchEmbedder();
    const started = performance.now();
    const baseVectors = await cached.embed(baseTexts);
    await cached.close?.();
    log(
      `vectors for ${baseTexts.length} base texts in ${((performance.now() - started) / 1000).toFixed(1)} s (bench cache)`,
    );
    const corpus = buildCorpus(
      baseTexts.map((text, i) => ({ text, vector: baseVectors[i] as Float32Array })),
      size,
    );
    const vectors = new Map<string, Float32Array>();
    for (let i = 0; i < size; i++) vectors.set(corpus.texts[i] as string, corpus.row(i));
    const raw = openRawEmbedder();
    await raw.embed(['warm up the model']);
    const store = createSqliteStore({ path: ':memory:' });
    const loader = await Engram.open({
      store,
      embedder: lookupEmbedder(raw.model, raw.dim, vectors),
      ownResources: false,
      env: {},
    });
    for (let s = 0; s < size; s += 1000) {
      const inputs = [];
      for (let i = s; i < Math.min(size, s + 1000); i++) inputs.push({ id: `m${i}`, text: corpus.texts[i] as string });
      await loader.addMany(inputs, { scope: SCOPE });
    }
    await loader.close();
    engram = await Engram.open({ store, embedder: raw, env: {}, trackUsage: false });
    for (const q of questions.slice(0, 5)) await engram.recall(q, { scope: SCOPE });
    log(`loaded ${size} memories into one scope`);
    add(
      'wrapped, Engram recall',
      wrapOpenAI(client, { recaller: engram, scope: SCOPE, budgetMs, onEvent: (e) => engramEvents.push(e) }),
      engramEvents,
    );
  }

  // Warm-up: JIT, sockets, the partition's vector cache.
  for (let i = 0; i < 10; i++) {
    for (const v of variants)
      await v.client.chat.completions.create({
        model: 'bench',
        messages: [{ role: 'user', content: questions[i % questions.length] as string }],
      });
  }
  for (const v of variants) v.events.length = 0;

  for (let i = 0; i < calls; i++) {
    const content = questions[i % questions.length] as string;
    for (const v of variants) {
      const body = v.request?.(content) ?? { model: 'bench', messages: [{ role: 'user' as const, content }] };
      const t0 = performance.now();
      await v.client.chat.completions.create(body);
      v.times.push(performance.now() - t0);
    }
  }

  const base = variants[0] as Variant;
  const rows = variants.map((v) => {
    const p50 = percentile(v.times, 50);
    const p95 = percentile(v.times, 95);
    return [
      v.name,
      fmt(p50),
      fmt(p95),
      fmt(mean(v.times)),
      v === base ? '–' : fmt(p50 - percentile(base.times, 50)),
      v === base ? '–' : fmt(p95 - percentile(base.times, 95)),
    ];
  });

  const splitRows: string[][] = [];
  const injected = engramEvents.filter((e): e is Extract<InjectEvent, { type: 'injected' }> => e.type === 'injected');
  const skipped = engramEvents.filter((e) => e.type === 'skipped');
  if (engram !== null) {
    const embed = injected.map((e) => e.timings.embedMs);
    const recall = injected.map((e) => e.timings.totalMs - e.timings.embedMs);
    const wall = injected.map((e) => e.recallMs);
    const inject = injected.map((e) => e.injectMs);
    splitRows.push(['query embedding (USE-lite)', fmt(percentile(embed, 50)), fmt(percentile(embed, 95))]);
    splitRows.push([
      `recall over ${size} memories (embedding excluded)`,
      fmt(percentile(recall, 50)),
      fmt(percentile(recall, 95)),
    ]);
    splitRows.push([
      'recall as seen by the wrapper (incl. embedding)',
      fmt(percentile(wall, 50)),
      fmt(percentile(wall, 95)),
    ]);
    splitRows.push(['block + injection', fmt(percentile(inject, 50), 4), fmt(percentile(inject, 95), 4)]);
  }
  const fixedInject = fixedEvents
    .filter((e): e is Extract<InjectEvent, { type: 'injected' }> => e.type === 'injected')
    .map((e) => e.injectMs);
  splitRows.push([
    'block + injection (fixed hits)',
    fmt(percentile(fixedInject, 50), 4),
    fmt(percentile(fixedInject, 95), 4),
  ]);

  const result = {
    size: engram === null ? 0 : size,
    calls,
    budgetMs,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? '',
    loadAtStart,
    node: process.version,
    variants: variants.map((v) => ({
      name: v.name,
      p50: percentile(v.times, 50),
      p95: percentile(v.times, 95),
      mean: mean(v.times),
    })),
    injectedCalls: injected.length,
    skipped: skipped
      .map((e) => (e.type === 'skipped' ? e.reason : ''))
      .reduce<Record<string, number>>((acc, r) => ({ ...acc, [r]: (acc[r] ?? 0) + 1 }), {}),
  };
  if (args.flags.has('json')) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    process.stdout.write(
      `${markdownTable(['variant', 'p50 ms', 'p95 ms', 'mean ms', 'added p50 ms', 'added p95 ms'], rows)}\n\n`,
    );
    process.stdout.write(`${markdownTable(['stage (wrapped, Engram)', 'p50 ms', 'p95 ms'], splitRows)}\n\n`);
    process.stdout.write(
      `${calls} calls per variant, interleaved; ${injected.length} Engram calls injected, skipped: ${JSON.stringify(result.skipped)}; ` +
        `budget ${budgetMs} ms; ${result.cpus} × ${result.cpuModel}; load at start ${loadAtStart.toFixed(2)}; Node ${process.version}\n`,
    );
  }
  await engram?.close();
  server.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

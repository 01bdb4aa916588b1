/**
 * Call-path cost of capture with formation: the latency a wrapped LLM call sees with capture
 * through formation (`remember`: episodes, capture windows, the durable queue) against capture
 * without it (`addMany`, verbatim) and against no capture, all wrapping the same local server.
 *
 *   npx tsx bench/formation-call-path.ts [--calls 1000] [--json]
 *
 * The server is an OpenAI-compatible chat endpoint on 127.0.0.1 that answers at once; recall is
 * off in every variant, so the only difference is capture. Variants run call by call, interleaved
 * (same message, same moment). Each variant's capture writes into its own Engram over a SQLite
 * file with the hashed test embedder; the formation variant has an LLM configured (the scripted
 * server), so its turns go into capture windows and jobs and its worker forms them in the
 * background. After each call the bench waits for that call's capture to settle before timing the
 * next, so the figures are the call path itself: what the wrapper does before the caller has its
 * answer. Goal: formation on ≤ 0.2 ms p50 above formation off.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import OpenAI from 'openai';

import { Engram } from '../src/engram.js';
import type { InjectEvent } from '../src/inject/inject-event.js';
import { wrapOpenAI } from '../src/inject/wrappers/openai.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { chatFor } from '../test/formation/support/chat-for.js';
import { HashedEmbedder } from '../test/support/hashed-embedder.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { startScriptedFormation } from './lib/scripted-formation.js';
import { shuffled } from './lib/shuffled.js';
import { fmt, markdownTable, mean, percentile } from './lib/stats.js';

const SCOPE = { tenant: 'bench', user: 'u', session: 's' };
const REPLY = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1,
  model: 'bench',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Noted.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
});

interface Variant {
  name: string;
  client: OpenAI;
  times: number[];
  /** Called before a call (outside the timed part): starts waiting for its capture. */
  arm: () => void;
  /** Resolves when the last armed call's capture has settled. */
  settled: () => Promise<void>;
}

/**
 * A wrapped client capturing into `engram` (none: capture off), with a wait for each call's
 * capture and, through formation, for the background work it caused (its window enqueued and
 * formed), so that no call is timed while an earlier one's background work is running.
 */
function capturingVariant(name: string, client: OpenAI, engram: Engram | null, formation: boolean): Variant {
  let done: () => void = () => undefined;
  let next: Promise<void> = Promise.resolve();
  const onEvent = (e: InjectEvent): void => {
    if (e.type === 'captured' || e.type === 'capture-failed') done();
  };
  const wrapped =
    engram === null
      ? wrapOpenAI(client, { recall: false, scope: SCOPE })
      : wrapOpenAI(client, { recall: false, scope: SCOPE, capture: { writer: engram, formation }, onEvent });
  return {
    name,
    client: wrapped,
    times: [],
    arm: () => {
      const captured = engram === null ? Promise.resolve() : new Promise<void>((resolve) => (done = resolve));
      next = formation && engram !== null ? captured.then(() => engram.idle()) : captured;
    },
    settled: () => next,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), ['calls'], ['json']);
  const calls = parseIntList(args.values.get('calls') ?? '1000', 'calls')[0] as number;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(REPLY);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = new OpenAI({
    apiKey: 'bench',
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    maxRetries: 0,
  });
  const llm = await startScriptedFormation({
    extract: { content: { memories: [] } },
    consolidate: { content: { decisions: [] } },
  });
  const dir = mkdtempSync(join(tmpdir(), 'engram-call-path-'));
  const open = (name: string, formation: boolean) =>
    Engram.open({
      store: createSqliteStore({ path: join(dir, `${name}.db`) }),
      embedder: new HashedEmbedder({ dim: 256 }),
      env: {},
      formation: formation ? { llm: chatFor('openai', llm), captureQuietMs: 60_000 } : {},
    });
  const verbatim = await open('verbatim', false);
  const formed = await open('formed', true);

  const variants: Variant[] = [
    { name: 'unwrapped', client, times: [], arm: () => undefined, settled: async () => undefined },
    capturingVariant('wrapped, capture off', client, null, false),
    capturingVariant('wrapped, capture verbatim (formation off)', client, verbatim, false),
    capturingVariant('wrapped, capture through formation (formation on)', client, formed, true),
  ];

  const messages = Array.from({ length: 50 }, (_, i) => `I am planning trip number ${i} to the mountains next month.`);
  let seed = 42;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const call = async (v: Variant, content: string) => {
    await new Promise((resolve) => setTimeout(resolve, 1)); // timers and I/O of the last call settle
    v.arm();
    const t0 = performance.now();
    await v.client.chat.completions.create({ model: 'bench', messages: [{ role: 'user', content }] });
    const ms = performance.now() - t0;
    await v.settled();
    return ms;
  };
  for (let i = 0; i < 20; i++) for (const v of variants) await call(v, messages[i % messages.length] as string);
  for (let i = 0; i < calls; i++) {
    const content = `${messages[i % messages.length] as string} (${i})`;
    // A new order every round (seeded), so that no variant always runs first or after the same one.
    for (const v of shuffled(variants, random)) v.times.push(await call(v, content));
  }
  const status = await formed.formationStatus({ scope: SCOPE });
  await formed.idle();
  await verbatim.close();
  await formed.close();
  await llm.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });

  const off = variants[2] as Variant;
  const base = variants[0] as Variant;
  if (args.flags.has('json')) {
    const out = Object.fromEntries(
      variants.map((v) => [
        v.name,
        { p50: percentile(v.times, 50), p95: percentile(v.times, 95), mean: mean(v.times) },
      ]),
    );
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
    return;
  }
  const rows = variants.map((v) => [
    v.name,
    fmt(percentile(v.times, 50)),
    fmt(percentile(v.times, 95)),
    v === base ? '–' : fmt(percentile(v.times, 50) - percentile(base.times, 50)),
    v === off || v === base || v === variants[1] ? '–' : fmt(percentile(v.times, 50) - percentile(off.times, 50)),
    v === off || v === base || v === variants[1] ? '–' : fmt(percentile(v.times, 95) - percentile(off.times, 95)),
  ]);
  process.stdout.write(
    `${markdownTable(['variant', 'p50 ms', 'p95 ms', 'p50 − unwrapped', 'p50 − formation off', 'p95 − formation off'], rows)}\n\n` +
      `formation queue after the run (before idle): ${JSON.stringify(status.queue.counts)}, open capture turns ${status.openCaptureTurns}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

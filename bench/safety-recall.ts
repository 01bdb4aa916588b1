/**
 * Recall latency with the write-safety guard on (the default policy: the query masked before it
 * is embedded, flagged memories withheld) vs off (`safety.policy.enabled: false`), side by side
 * in one process over the same SQLite file.
 *
 *   npx tsx bench/safety-recall.ts [--n 10000] [--queries 200] [--passes 5] [--json]
 *
 * The store holds `--n` LoCoMo turns (as the importer makes them), written once with precomputed
 * vectors (a lookup embedder over random unit vectors, so embedding costs nothing). Queries are
 * LoCoMo turn texts. Two Engram instances open the same file; each pass runs every query on one
 * then the other (which goes first alternates), the median pass is reported.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { Engram } from '../src/engram.js';
import { readLocomoFile } from '../src/import/locomo.js';
import type { MemoryInput } from '../src/model/memory.js';
import { createSqliteStore } from '../src/store/sqlite/index.js';
import { LOCOMO_DEV } from '../test/safety/support/safety-tables.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { lookupEmbedder } from './lib/bench-embedder.js';
import { fmt, markdownTable } from './lib/stats.js';
import { mulberry32, randomUnit } from './lib/synthetic-corpus.js';

const args = parseArgs(process.argv.slice(2), ['n', 'queries', 'passes'], ['json']);
const N = parseIntList(args.values.get('n') ?? '10000', 'n')[0] as number;
const QUERIES = parseIntList(args.values.get('queries') ?? '200', 'queries')[0] as number;
const PASSES = parseIntList(args.values.get('passes') ?? '5', 'passes')[0] as number;
const SCOPE = { tenant: 'bench', user: 'u' };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function main(): Promise<void> {
  const base = (await readLocomoFile(LOCOMO_DEV as string)).flatMap((c) => c.memories);
  const inputs: MemoryInput[] = [];
  for (let i = 0; i < N; i++) {
    const turn = base[i % base.length] as MemoryInput;
    const copy = Math.floor(i / base.length);
    inputs.push({ ...turn, text: copy === 0 ? turn.text : `${turn.text} (${copy})`, id: `m${i}` });
  }
  const queries = base.slice(0, QUERIES).map((m) => m.text.replace(/^[^:]{1,30}: /, ''));
  const r = mulberry32(5);
  const vectors = new Map<string, Float32Array>();
  for (const text of [...inputs.map((m) => m.text), ...queries])
    if (!vectors.has(text)) vectors.set(text, randomUnit(r, 256));
  const dir = mkdtempSync(join(tmpdir(), 'engram-safety-recall-'));
  const path = join(dir, 'e.db');
  const open = (guard: boolean) =>
    Engram.open({
      store: createSqliteStore({ path }),
      embedder: lookupEmbedder('bench-random', 256, vectors),
      env: {},
      safety: guard ? {} : { policy: { enabled: false } },
    });
  try {
    const writer = await open(true);
    for (let s = 0; s < inputs.length; s += 1000) await writer.addMany(inputs.slice(s, s + 1000), { scope: SCOPE });
    await writer.close();
    const on = await open(true);
    const off = await open(false);
    const run = async (engram: Engram): Promise<{ wall: number; cpu: number }> => {
      const cpu = process.cpuUsage();
      const start = performance.now();
      for (const q of queries) await engram.recall(q, { scope: SCOPE, limit: 10 });
      const used = process.cpuUsage(cpu);
      return { wall: performance.now() - start, cpu: (used.user + used.system) / 1000 };
    };
    await run(on);
    await run(off); // warm-up: caches and JIT
    const times = { on: [] as Array<{ wall: number; cpu: number }>, off: [] as Array<{ wall: number; cpu: number }> };
    for (let p = 0; p < PASSES; p++) {
      if (p % 2 === 0) {
        times.off.push(await run(off));
        times.on.push(await run(on));
      } else {
        times.on.push(await run(on));
        times.off.push(await run(off));
      }
    }
    await on.close();
    await off.close();
    const per = (t: Array<{ wall: number; cpu: number }>, k: 'wall' | 'cpu') =>
      median(t.map((x) => x[k])) / queries.length;
    const rows = (['off', 'on'] as const).map((name) => [
      `recall, guard ${name}`,
      fmt(per(times[name], 'wall'), 3),
      fmt(per(times[name], 'cpu'), 3),
      name === 'off' ? '–' : `${fmt((per(times.on, 'wall') / per(times.off, 'wall') - 1) * 100, 1)}%`,
      name === 'off' ? '–' : `${fmt((per(times.on, 'cpu') / per(times.off, 'cpu') - 1) * 100, 1)}%`,
    ]);
    if (args.flags.has('json')) {
      console.log(JSON.stringify({ n: N, queries: queries.length, passes: PASSES, rows }, null, 2));
      return;
    }
    console.log(
      `## Recall latency, guard on vs off (${N} memories, ${queries.length} queries, SQLite file, median of ${PASSES} alternated passes)\n`,
    );
    console.log(
      markdownTable(['variant', 'wall ms / recall', 'CPU ms / recall', 'slower (wall)', 'slower (CPU)'], rows),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

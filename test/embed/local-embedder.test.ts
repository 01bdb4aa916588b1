import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalEmbedder } from '../../src/embed/local/local-embedder.js';
import { UseLiteTokenizer } from '../../src/embed/local/use-lite-tokenizer.js';
import { loadUseLiteTensors, loadUseLiteVocab, useLiteWeightsFrom } from '../../src/embed/local/use-lite-weights.js';
import { quantizeColumns } from '../../src/embed/onnx/onnx-graph-builder.js';
import { UseLiteOnnxModel } from '../../src/embed/local/use-lite-onnx-model.js';
import { planBatches } from '../../src/embed/onnx/plan-batches.js';
import { isEngramError } from '../../src/model/errors.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { cosine } from '../../src/vector/cosine.js';

const require = createRequire(import.meta.url);

interface RefTokenizer {
  encode(text: string): number[];
}

/** LoCoMo dev turns from shared/ beside the repository (CI) or /work/shared, when present. */
const LOCOMO = [
  fileURLToPath(new URL('../../../shared/data/locomo-dev.json', import.meta.url)),
  '/work/shared/data/locomo-dev.json',
].find((p) => existsSync(p));

const FALLBACK_TURNS = [
  'Hey Mel! Good to see you! How have you been?',
  'I went to a LGBTQ support group yesterday and it was so powerful.',
  "That's awesome, Caroline! I'm so proud of you for going.",
  "My kids and I painted a sunset last weekend; it's hanging in the hallway now.",
  "I'm thinking about studying counseling so I can help people like me.",
  'We camped by the lake in July and saw the Perseid meteor shower.',
  'Running a charity 5K on 20 May 2023 raised $1,250 for the shelter!',
  'Do you still play the violin? I remember your recital in 2019.',
  "It's been tough since grandma passed, but the pottery class helps.",
  'Wow, that sounds amazing — send me pictures of the new puppy!',
];

function locomoTurns(limit: number): string[] {
  if (!LOCOMO) return FALLBACK_TURNS.slice(0, limit);
  const data = JSON.parse(readFileSync(LOCOMO, 'utf8')) as Array<{
    conversation: Record<string, unknown>;
  }>;
  const out: string[] = [];
  for (const sample of data) {
    for (let i = 1; i < 60; i++) {
      const session = sample.conversation[`session_${i}`];
      if (!Array.isArray(session)) continue;
      for (const turn of session as Array<{ text: string }>) out.push(turn.text);
    }
  }
  return out.slice(0, limit);
}

const EDGE_CASES = [
  '',
  ' ',
  'a',
  'Hello world',
  'Crème brûlée à la café — naïve façade',
  'Привет, как дела?',
  '我喜欢在周末去公园散步',
  'Emoji 🎉🎉 party 🥳 time',
  'tabs\tand\nnewlines   and  double  spaces',
  'ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ ①②③',
  'word '.repeat(200),
  'x'.repeat(300),
];

describe('USE-lite tokenizer', () => {
  it('gives the same token ids as the reference tokenizer on real turns (all 2,760 LoCoMo dev turns when present) and edge cases', async () => {
    const vocab = await loadUseLiteVocab();
    const { EmbeddingsModel } = require('@energetic-ai/embeddings') as {
      EmbeddingsModel: new (data: { vocabulary: unknown; model: unknown }) => { tokenizer: RefTokenizer };
    };
    const reference = new EmbeddingsModel({ vocabulary: vocab, model: null }).tokenizer;
    const ours = new UseLiteTokenizer(vocab);
    const texts = [...locomoTurns(100_000), ...EDGE_CASES];
    expect(texts.length).toBeGreaterThan(LOCOMO ? 2700 : 20);
    const mismatches = texts.filter((t) => JSON.stringify(reference.encode(t)) !== JSON.stringify(ours.encode(t)));
    expect(mismatches).toEqual([]);
    expect(ours.encode('Hello world').length).toBeGreaterThan(1);
  });
});

describe('planBatches', () => {
  it('covers every index once, in order, within the token budget', () => {
    const lengths = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 128, 128].sort((a, b) => a - b);
    const batches = planBatches(lengths, 200);
    expect(batches[0]?.[0]).toBe(0);
    expect(batches.at(-1)?.[1]).toBe(lengths.length);
    for (let i = 1; i < batches.length; i++) expect(batches[i]?.[0]).toBe(batches[i - 1]?.[1]);
    for (const [s, e] of batches) {
      if (e - s > 1) expect((e - s) * (lengths[e - 1] ?? 0)).toBeLessThanOrEqual(200);
    }
    // Very different lengths are not padded together.
    expect(batches.some(([s, e]) => s <= 0 && e > 10)).toBe(false);
  });
});

describe('createLocalEmbedder (onnx) against the reference runtime', () => {
  let ours: Embedder;
  let exact: Embedder;
  let reference: Embedder;
  const sentences = [...locomoTurns(30), ...EDGE_CASES];

  beforeAll(() => {
    ours = createLocalEmbedder({ runtime: 'onnx' });
    exact = createLocalEmbedder({ runtime: 'onnx', quantize: false });
    reference = createLocalEmbedder({ runtime: 'reference' });
  });
  afterAll(async () => {
    await ours.close?.();
    await exact.close?.();
    await reference.close?.();
  });

  it('declares model id and dimension', () => {
    expect(ours.model).toBe('use-lite');
    expect(ours.dim).toBe(512);
  });

  it('gives the same vectors as @energetic-ai/embeddings: cosine ≥ 0.999 with int8 FFN (default), ≥ 0.99999 in float32', async () => {
    const refVectors: Float32Array[] = [];
    for (const s of sentences) refVectors.push(...(await reference.embed([s])));
    for (const [embedder, bound, sameText] of [
      [ours, 0.999, 0.9995],
      [exact, 0.99999, 0.99999],
    ] as const) {
      const batched = await embedder.embed(sentences);
      const single: Float32Array[] = [];
      for (const s of sentences.slice(0, 10)) single.push(...(await embedder.embed([s])));
      expect(batched).toHaveLength(sentences.length);
      const worst = Math.min(...batched.map((v, i) => cosine(v, refVectors[i] ?? [])));
      expect(worst).toBeGreaterThanOrEqual(bound);
      // Quantised activations take their scale from the whole batch: alone or batched differ a little.
      single.forEach((v, i) => expect(cosine(v, batched[i] ?? [])).toBeGreaterThanOrEqual(sameText));
      for (const v of batched) {
        expect(v).toBeInstanceOf(Float32Array);
        expect(v.length).toBe(512);
        const norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
        expect(norm).toBeCloseTo(1, 4);
      }
    }
  });

  it('gives the same vectors for concurrent calls and many small batches over several workers (float32)', async () => {
    const texts = sentences.slice(0, 24);
    const whole = await exact.embed(texts);
    const parts = await Promise.all([
      exact.embed(texts.slice(0, 8)),
      exact.embed(texts.slice(8, 16)),
      exact.embed(texts.slice(16)),
    ]);
    const tiny = createLocalEmbedder({ runtime: 'onnx', quantize: false, maxBatchTokens: 16, parallelRuns: 3 });
    const tinyBatches = await tiny.embed(texts);
    await tiny.close?.();
    parts.flat().forEach((v, i) => expect(cosine(v, whole[i] ?? [])).toBeGreaterThan(0.99999));
    tinyBatches.forEach((v, i) => expect(cosine(v, whole[i] ?? [])).toBeGreaterThan(0.99999));
  });

  it('ranks a paraphrase above an unrelated sentence', async () => {
    const [a, b, c] = await ours.embed([
      'I adopted a puppy last week',
      'We got a new dog recently',
      'The stock market fell sharply today',
    ]);
    expect(cosine(a ?? [], b ?? [])).toBeGreaterThan(cosine(a ?? [], c ?? []) + 0.1);
  });

  it('returns [] for no texts and honours an aborted signal', async () => {
    expect(await ours.embed([])).toEqual([]);
    const controller = new AbortController();
    controller.abort();
    await expect(ours.embed(['hi'], { signal: controller.signal })).rejects.toThrow();
  });

  it('rejects unknown runtimes with CONFIG_ERROR and calls after close with EMBEDDER_ERROR', async () => {
    let error: unknown;
    try {
      createLocalEmbedder({ runtime: 'gpu' as 'onnx' });
    } catch (e) {
      error = e;
    }
    expect(isEngramError(error, 'CONFIG_ERROR')).toBe(true);
    const e = createLocalEmbedder();
    await e.close?.();
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'EMBEDDER_ERROR' });
  });

  it('reports a missing model folder as an EngramError', async () => {
    const e = createLocalEmbedder({ modelDir: '/nonexistent/engram-model' });
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'EMBEDDER_ERROR' });
    await e.close?.();
  });
});

describe('8-bit feed-forward weights', () => {
  it('quantizeColumns keeps every weight within half a step of its column scale, signed or with zero point 128', () => {
    const kernel = Float32Array.from({ length: 6 * 4 }, (_, i) => Math.sin(i * 1.7) * (1 + (i % 4)));
    for (const unsigned of [false, true]) {
      const { weights, scales, zeroPoints } = quantizeColumns(kernel, 6, 4, unsigned);
      expect(weights).toBeInstanceOf(unsigned ? Uint8Array : Int8Array);
      expect(zeroPoints === undefined).toBe(!unsigned);
      kernel.forEach((w, i) => {
        const scale = scales[i % 4] ?? 0;
        const q = (weights[i] ?? 0) - (unsigned ? 128 : 0);
        expect(Math.abs(q * scale - w)).toBeLessThanOrEqual(scale / 2 + 1e-7);
      });
    }
  });

  it('gives the same vectors with signed and unsigned (zero point 128) weights', async () => {
    const weights = useLiteWeightsFrom(await loadUseLiteTensors());
    const tokenizer = new UseLiteTokenizer(await loadUseLiteVocab());
    const tokens = locomoTurns(12).map((t) => tokenizer.encode(t));
    const [signed, unsigned] = await Promise.all([
      UseLiteOnnxModel.load(weights, { int8Weights: 'int8', parallelRuns: 1 }),
      UseLiteOnnxModel.load(weights, { int8Weights: 'uint8', parallelRuns: 1 }),
    ]);
    const [a, b] = [await signed.embedTokens(tokens), await unsigned.embedTokens(tokens)];
    await Promise.all([signed.close(), unsigned.close()]);
    a.forEach((v, i) => expect(cosine(v, b[i] ?? [])).toBeGreaterThan(0.99999));
  });
});

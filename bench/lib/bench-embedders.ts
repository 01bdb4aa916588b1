import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Embedder } from '../../src/embed/embedder.js';
import { createOnnxEmbedder } from '../../src/embed/onnx/onnx-embedder.js';
import { writeTinyFolder } from '../../test/embed/tiny-model-folder.js';
import { wordPieceTokenizer } from '../../test/embed/tiny-tokenizers.js';
import { HashedEmbedder } from '../../test/support/hashed-embedder.js';
import { openBenchEmbedder } from './bench-embedder.js';

/** The embedders the ranking benches compare, by name. */
export const BENCH_EMBEDDER_NAMES = ['use-lite', 'onnx-random', 'hashed-bow'] as const;
export type BenchEmbedderName = (typeof BENCH_EMBEDDER_NAMES)[number];

/** What each embedder stands for, for reports. */
export const BENCH_EMBEDDER_LABELS: Record<BenchEmbedderName, string> = {
  'use-lite': 'use-lite (the default, int8 feed-forward)',
  'onnx-random': 'onnx: a BERT-shaped model with random weights (hidden 64, WordPiece over the corpus words)',
  'hashed-bow': 'hashed bag of words and trigrams (256 dimensions)',
};

/** The most frequent lower-case words of the texts, for a WordPiece vocabulary. */
function vocabularyOf(texts: readonly string[], size: number): string[] {
  const counts = new Map<string, number>();
  for (const t of texts)
    for (const w of t.toLowerCase().match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? [])
      counts.set(w, (counts.get(w) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, size)
    .map(([w]) => w);
}

/**
 * Opens one of {@link BENCH_EMBEDDER_NAMES}. `onnx-random` is an ONNX model folder the bench
 * writes itself, as a user would have it on disk (model.onnx, tokenizer.json, sentence-transformers
 * mean pooling + L2), with random weights: an embedder of unknown, poor quality, run through the
 * real `onnx:` embedder. `corpus` gives its vocabulary.
 */
export async function openEmbedderUnderTest(name: BenchEmbedderName, corpus: readonly string[]): Promise<Embedder> {
  if (name === 'use-lite') return openBenchEmbedder();
  if (name === 'hashed-bow') return new HashedEmbedder({ dim: 256 });
  const dir = mkdtempSync(join(tmpdir(), 'engram-onnx-random-'));
  const tokenizer = wordPieceTokenizer() as { model: { vocab: Record<string, number> } };
  const words = vocabularyOf(corpus, 6000);
  const vocab: Record<string, number> = { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3 };
  words.forEach((w, i) => (vocab[w] = i + 4));
  tokenizer.model.vocab = vocab;
  await writeTinyFolder(dir, {
    tokenizer,
    vocab: words.length + 4,
    hidden: 64,
    seed: 11,
    sentenceTransformers: { pooling: 'mean', normalize: true },
  });
  const embedder = await createOnnxEmbedder({ path: dir, threads: 1 });
  return {
    model: embedder.model,
    dim: embedder.dim,
    embed: (texts, options) => embedder.embed(texts, options),
    async close() {
      await embedder.close?.();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

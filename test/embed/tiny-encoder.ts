/**
 * A tiny BERT-like sentence encoder for the ONNX embedder tests: random weights, written as a
 * real ONNX file with our ONNX writer, and a plain-JS forward pass of the same maths (float64)
 * that gives the expected token vectors independently of onnxruntime.
 *
 * Graph: word + token-type + position embeddings → LayerNorm → one single-head self-attention
 * block (padding keys masked) with residual and LayerNorm → ReLU feed-forward with residual and
 * LayerNorm → `last_hidden_state` [batch, len, hidden].
 */
import { seededRandom } from '../store/fixtures/records.js';
import { encodeOnnxModel, OnnxType, type OnnxNode, type OnnxTensor } from '../../src/embed/onnx/onnx-proto.js';

export interface TinyEncoderWeights {
  vocab: number;
  hidden: number;
  ffn: number;
  positions: number;
  word: Float64Array;
  type: Float64Array;
  pos: Float64Array;
  ln: Array<{ g: Float64Array; b: Float64Array }>;
  wq: Float64Array;
  bq: Float64Array;
  wk: Float64Array;
  bk: Float64Array;
  wv: Float64Array;
  bv: Float64Array;
  wo: Float64Array;
  bo: Float64Array;
  w1: Float64Array;
  b1: Float64Array;
  w2: Float64Array;
  b2: Float64Array;
}

/** Random weights, rounded to float32 so that both computations start from the same numbers. */
export function tinyEncoderWeights(seed: number, vocab: number, hidden: number, ffn = 2 * hidden): TinyEncoderWeights {
  const next = seededRandom(seed);
  const make = (n: number, scale = 0.5, offset = 0): Float64Array =>
    Float64Array.from({ length: n }, () => Math.fround(offset + (next() * 2 - 1) * scale));
  const positions = 64;
  return {
    vocab,
    hidden,
    ffn,
    positions,
    word: make(vocab * hidden, 1),
    type: make(2 * hidden, 0.2),
    pos: make(positions * hidden, 0.3),
    ln: [0, 1, 2].map(() => ({ g: make(hidden, 0.2, 1), b: make(hidden, 0.1) })),
    wq: make(hidden * hidden),
    bq: make(hidden, 0.1),
    wk: make(hidden * hidden),
    bk: make(hidden, 0.1),
    wv: make(hidden * hidden),
    bv: make(hidden, 0.1),
    wo: make(hidden * hidden),
    bo: make(hidden, 0.1),
    w1: make(hidden * ffn),
    b1: make(ffn, 0.1),
    w2: make(ffn * hidden),
    b2: make(hidden, 0.1),
  };
}

/** The ONNX model bytes (inputs input_ids, attention_mask, token_type_ids; output last_hidden_state). */
export function tinyEncoderOnnx(w: TinyEncoderWeights): Uint8Array {
  const nodes: OnnxNode[] = [];
  const initializers: OnnxTensor[] = [];
  let n = 0;
  const f32 = (name: string, dims: number[], data: Float64Array): string => {
    initializers.push({ name, dims, data: Float32Array.from(data) });
    return name;
  };
  const i64 = (name: string, dims: number[], values: number[]): string => {
    initializers.push({ name, dims, data: BigInt64Array.from(values.map(BigInt)) });
    return name;
  };
  const op = (type: string, inputs: string[], attrs?: OnnxNode['attrs'], out = `${type}_${n++}`): string => {
    nodes.push({ op: type, inputs, outputs: [out], ...(attrs ? { attrs } : {}) });
    return out;
  };
  const H = w.hidden;
  const dense = (x: string, name: string, k: Float64Array, b: Float64Array, inDim: number, outDim: number): string =>
    op('Add', [op('MatMul', [x, f32(`${name}.w`, [inDim, outDim], k)]), f32(`${name}.b`, [outDim], b)]);
  const norm = (x: string, i: number): string =>
    op('LayerNormalization', [x, f32(`ln${i}.g`, [H], w.ln[i]!.g), f32(`ln${i}.b`, [H], w.ln[i]!.b)], {
      axis: -1,
      epsilon: { float: 1e-5 },
    });

  const len = op('Gather', [op('Shape', ['input_ids']), i64('one', [], [1])], { axis: 0 });
  const positions = op('Range', [i64('zero', [], [0]), len, i64('step', [], [1])]);
  const summed = op('Add', [
    op('Add', [
      op('Gather', [f32('word', [w.vocab, H], w.word), 'input_ids']),
      op('Gather', [f32('type', [2, H], w.type), 'token_type_ids']),
    ]),
    op('Gather', [f32('pos', [w.positions, H], w.pos), positions]),
  ]);
  const x = norm(summed, 0);
  const q = dense(x, 'q', w.wq, w.bq, H, H);
  const k = dense(x, 'k', w.wk, w.bk, H, H);
  const v = dense(x, 'v', w.wv, w.bv, H, H);
  const scores = op('Mul', [
    op('MatMul', [q, op('Transpose', [k], { perm: [0, 2, 1] })]),
    f32('scale', [], Float64Array.of(Math.fround(1 / Math.sqrt(H)))),
  ]);
  const maskF = op('Cast', ['attention_mask'], { to: OnnxType.FLOAT });
  const bias = op('Unsqueeze', [
    op('Mul', [op('Sub', [maskF, f32('onef', [], Float64Array.of(1))]), f32('big', [], Float64Array.of(1e9))]),
    i64('axis1', [1], [1]),
  ]);
  const attn = op('MatMul', [op('Softmax', [op('Add', [scores, bias])], { axis: -1 }), v]);
  const h = norm(op('Add', [x, dense(attn, 'o', w.wo, w.bo, H, H)]), 1);
  const ff = dense(op('Relu', [dense(h, 'ff1', w.w1, w.b1, H, w.ffn)]), 'ff2', w.w2, w.b2, w.ffn, H);
  op('Identity', [norm(op('Add', [h, ff]), 2)], undefined, 'last_hidden_state');

  const io = (name: string) => ({ name, elemType: OnnxType.INT64, shape: ['batch', 'len'] });
  return encodeOnnxModel({
    name: 'tiny-encoder',
    nodes,
    initializers,
    inputs: [io('input_ids'), io('attention_mask'), io('token_type_ids')],
    outputs: [{ name: 'last_hidden_state', elemType: OnnxType.FLOAT, shape: ['batch', 'len', H] }],
  });
}

/** Token vectors [len][hidden] of one unpadded sentence, in float64. */
export function tinyEncoderForward(w: TinyEncoderWeights, ids: readonly number[]): number[][] {
  const H = w.hidden;
  const row = (m: Float64Array, i: number, width: number): number[] =>
    Array.from(m.subarray(i * width, (i + 1) * width));
  const matvec = (x: number[], m: Float64Array, b: Float64Array, outDim: number): number[] =>
    Array.from({ length: outDim }, (_, j) => x.reduce((s, xi, i) => s + xi * (m[i * outDim + j] ?? 0), b[j] ?? 0));
  const layerNorm = (x: number[], i: number): number[] => {
    const mean = x.reduce((a, b) => a + b, 0) / x.length;
    const variance = x.reduce((a, b) => a + (b - mean) ** 2, 0) / x.length;
    return x.map((v, k) => ((v - mean) / Math.sqrt(variance + 1e-5)) * (w.ln[i]!.g[k] ?? 0) + (w.ln[i]!.b[k] ?? 0));
  };
  const add = (a: number[], b: number[]): number[] => a.map((v, i) => v + (b[i] ?? 0));
  const x = ids.map((id, p) => layerNorm(add(add(row(w.word, id, H), row(w.type, 0, H)), row(w.pos, p, H)), 0));
  const q = x.map((t) => matvec(t, w.wq, w.bq, H));
  const k = x.map((t) => matvec(t, w.wk, w.bk, H));
  const v = x.map((t) => matvec(t, w.wv, w.bv, H));
  return x.map((xi, i) => {
    const logits = k.map((kj) => kj.reduce((s, kv, d) => s + kv * (q[i]![d] ?? 0), 0) / Math.sqrt(H));
    const top = Math.max(...logits);
    const e = logits.map((l) => Math.exp(l - top));
    const z = e.reduce((a, b) => a + b, 0);
    const ctx = Array.from({ length: H }, (_, d) => e.reduce((s, ej, j) => s + (ej / z) * (v[j]![d] ?? 0), 0));
    const h = layerNorm(add(xi, matvec(ctx, w.wo, w.bo, H)), 1);
    const hidden = matvec(h, w.w1, w.b1, w.ffn).map((u) => Math.max(0, u));
    return layerNorm(add(h, matvec(hidden, w.w2, w.b2, H)), 2);
  });
}

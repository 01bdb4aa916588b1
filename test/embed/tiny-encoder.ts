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
import { OnnxGraphBuilder } from '../../src/embed/onnx/onnx-graph-builder.js';
import { OnnxType } from '../../src/embed/onnx/onnx-proto.js';

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
  const g = new OnnxGraphBuilder();
  const H = w.hidden;
  const f = (x: Float64Array): Float32Array => Float32Array.from(x);
  const dense = (x: string, name: string, k: Float64Array, b: Float64Array, inDim: number, outDim: number): string =>
    g.dense(name, x, f(k), f(b), inDim, outDim);
  const norm = (x: string, i: number): string => g.layerNorm(`ln${i}`, x, f(w.ln[i]!.g), f(w.ln[i]!.b), 1e-5);
  const i64 = (name: string, values: number[], dims = [values.length]): string =>
    g.init(name, dims, BigInt64Array.from(values.map(BigInt)));

  const len = g.op('Gather', [g.op('Shape', ['input_ids']), i64('one', [1], [])], { axis: 0 });
  const positions = g.op('Range', [i64('zero', [0], []), len, i64('step', [1], [])]);
  const summed = g.op('Add', [
    g.op('Add', [
      g.op('Gather', [g.init('word', [w.vocab, H], f(w.word)), 'input_ids']),
      g.op('Gather', [g.init('type', [2, H], f(w.type)), 'token_type_ids']),
    ]),
    g.op('Gather', [g.init('pos', [w.positions, H], f(w.pos)), positions]),
  ]);
  const x = norm(summed, 0);
  const [q, k, v] = (['q', 'k', 'v'] as const).map((n) => dense(x, n, w[`w${n}`], w[`b${n}`], H, H)) as [
    string,
    string,
    string,
  ];
  const scores = g.op('Mul', [
    g.op('MatMul', [q, g.op('Transpose', [k], { perm: [0, 2, 1] })]),
    g.scalar('scale', Math.fround(1 / Math.sqrt(H))),
  ]);
  const maskF = g.op('Cast', ['attention_mask'], { to: OnnxType.FLOAT });
  const bias = g.op('Unsqueeze', [
    g.op('Mul', [g.op('Sub', [maskF, g.scalar('onef', 1)]), g.scalar('big', 1e9)]),
    i64('axis1', [1]),
  ]);
  const attn = g.op('MatMul', [g.op('Softmax', [g.op('Add', [scores, bias])], { axis: -1 }), v]);
  const h = norm(g.op('Add', [x, dense(attn, 'o', w.wo, w.bo, H, H)]), 1);
  const ff = dense(g.op('Relu', [dense(h, 'ff1', w.w1, w.b1, H, w.ffn)]), 'ff2', w.w2, w.b2, w.ffn, H);
  g.op('Identity', [norm(g.op('Add', [h, ff]), 2)], undefined, 'last_hidden_state');

  const io = (name: string) => ({ name, elemType: OnnxType.INT64, shape: ['batch', 'len'] });
  return g.finish({
    name: 'tiny-encoder',
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

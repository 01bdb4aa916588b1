import { OnnxGraphBuilder } from '../onnx/onnx-graph-builder.js';
import { OnnxType } from '../onnx/onnx-proto.js';
import type { UseLiteLayerWeights, UseLiteWeights } from './use-lite-weights.js';

/**
 * Names of the inputs of the ONNX graph built by {@link buildUseLiteOnnx}. The token embedding
 * lookup and the position signal are done in JavaScript (cheap), everything else in the graph.
 *
 * - `x`: [batch, len, 256] 2 × token embedding + timing signal (the TF graph adds the
 *   embedding twice), zero at padding positions.
 * - `mask`: [batch, len, 1] 1 for real tokens, 0 for padding.
 * - `bias`: [batch, 1, 1, len] 0 for real tokens, -1e9 for padding (attention bias).
 * - `count`: [batch, 1] max(number of tokens, 1).
 *
 * Output `y`: [batch, 512] tanh layer output before l2 normalization.
 */
export const USE_LITE_ONNX_IO = { x: 'x', mask: 'mask', bias: 'bias', count: 'count', y: 'y' } as const;

export interface UseLiteGraphOptions {
  /**
   * Run the feed-forward layers on 8-bit weights ('int8': signed, fastest where the CPU has
   * VNNI or ARM dot products; 'uint8': with zero point 128, no 16-bit saturation on older x86).
   * Unset: float32 everywhere.
   */
  int8Weights?: 'int8' | 'uint8' | undefined;
}

/**
 * Builds an ONNX model that computes exactly the USE-lite "KonaTransformer" of model.json:
 * two pre-norm transformer layers (4 heads; 256→512 then 512), ReLU FFN 1536, masked mean
 * pooling and the tanh layer. Mirrors the TF graph's masking: FFN and the layer-0 residual
 * projection are zero at padding positions; padding keys get a -1e9 attention bias. With
 * `int8Weights`, the FFN runs quantised (vectors within cosine 0.9996 of float32 on LoCoMo).
 */
export function buildUseLiteOnnx(w: UseLiteWeights, options: UseLiteGraphOptions = {}): Uint8Array {
  const g = new OnnxGraphBuilder();
  const io = USE_LITE_ONNX_IO;
  const layerNorm = (name: string, x: string, scale: Float32Array, bias: Float32Array): string =>
    g.layerNorm(name, x, scale, bias, 1e-6);
  /** The FFN layers (two thirds of the work) may run on 8-bit weights; everything else stays float32. */
  const ffn = (name: string, x: string, kernel: Float32Array, bias: Float32Array, inDim: number, outDim: number) =>
    options.int8Weights
      ? g.quantizedDense(name, x, kernel, bias, inDim, outDim, options.int8Weights === 'uint8')
      : g.dense(name, x, kernel, bias, inDim, outDim);

  const attention = (p: string, x: string, lw: UseLiteLayerWeights): string => {
    const d = lw.inDim;
    const qkv = g.dense(`${p}.qkv`, x, lw.qkvKernel, lw.qkvBias, d, 3 * d);
    const [q, k, v] = [g.tmp('q'), g.tmp('k'), g.tmp('v')];
    g.node({ op: 'Split', inputs: [qkv, g.ints(`${p}.split`, [d, d, d])], outputs: [q, k, v], attrs: { axis: -1 } });
    const headsShape = g.ints(`${p}.heads`, [0, 0, 4, lw.headDim]);
    const heads = (t: string, perm: number[]): string =>
      g.op('Transpose', [g.op('Reshape', [t, headsShape])], { perm });
    const scaled = g.op('Mul', [heads(q, [0, 2, 1, 3]), g.scalar(`${p}.scale`, lw.attnScale)]);
    const logits = g.op('Add', [g.op('MatMul', [scaled, heads(k, [0, 2, 3, 1])]), io.bias]);
    const weights = g.op('Softmax', [logits], { axis: -1 });
    const ctx = g.op('Transpose', [g.op('MatMul', [weights, heads(v, [0, 2, 1, 3])])], { perm: [0, 2, 1, 3] });
    const merged = g.op('Reshape', [ctx, g.ints(`${p}.merge`, [0, 0, d])]);
    return g.dense(`${p}.out`, merged, lw.outKernel, lw.outBias, d, 512);
  };

  const layer = (i: number, x: string, lw: UseLiteLayerWeights): string => {
    const p = `l${i}`;
    const attn = attention(p, layerNorm(`${p}.ln`, x, lw.lnScale, lw.lnBias), lw);
    let residual = x;
    if (lw.residualKernel && lw.residualBias) {
      residual = g.op('Mul', [g.dense(`${p}.res`, x, lw.residualKernel, lw.residualBias, 256, 512), io.mask]);
    }
    const h = g.op('Add', [attn, residual]);
    const normed = layerNorm(`${p}.ffln`, h, lw.ffnLnScale, lw.ffnLnBias);
    const hidden = g.op('Relu', [ffn(`${p}.ff1`, normed, lw.ffn1Kernel, lw.ffn1Bias, 512, 1536)]);
    const ff = ffn(`${p}.ff2`, hidden, lw.ffn2Kernel, lw.ffn2Bias, 1536, 512);
    return g.op('Add', [g.op('Mul', [ff, io.mask]), h]);
  };

  const h = layer(1, layer(0, io.x, w.layers[0]), w.layers[1]);
  const summed = g.op('ReduceSum', [g.op('Mul', [h, io.mask]), g.ints('pool.axes', [1])], { keepdims: 0 });
  const pooled = g.op('Div', [summed, io.count]);
  g.op('Tanh', [g.dense('tanh', pooled, w.tanhKernel, w.tanhBias, 512, 512)], undefined, io.y);

  return g.finish({
    name: 'use-lite',
    inputs: [
      { name: io.x, elemType: OnnxType.FLOAT, shape: ['batch', 'len', 256] },
      { name: io.mask, elemType: OnnxType.FLOAT, shape: ['batch', 'len', 1] },
      { name: io.bias, elemType: OnnxType.FLOAT, shape: ['batch', 1, 1, 'len'] },
      { name: io.count, elemType: OnnxType.FLOAT, shape: ['batch', 1] },
    ],
    outputs: [{ name: io.y, elemType: OnnxType.FLOAT, shape: ['batch', 512] }],
  });
}

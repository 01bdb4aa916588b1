import { encodeOnnxModel, OnnxType, type OnnxAttr, type OnnxNode, type OnnxTensor } from '../onnx/onnx-proto.js';
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
 * Per-output-column symmetric 8-bit quantisation of a [inDim, outDim] kernel: scale =
 * max |column| / 127; as uint8 the same values shifted by a zero point of 128.
 */
export function quantizeColumns(
  kernel: Float32Array,
  inDim: number,
  outDim: number,
  unsigned: boolean,
): { weights: Int8Array | Uint8Array; scales: Float32Array; zeroPoints: Uint8Array | undefined } {
  const scales = new Float32Array(outDim);
  for (let n = 0; n < outDim; n++) {
    let max = 0;
    for (let k = 0; k < inDim; k++) max = Math.max(max, Math.abs(kernel[k * outDim + n] ?? 0));
    scales[n] = max > 0 ? max / 127 : 1;
  }
  const weights = unsigned ? new Uint8Array(inDim * outDim) : new Int8Array(inDim * outDim);
  const shift = unsigned ? 128 : 0;
  for (let k = 0; k < inDim; k++) {
    for (let n = 0; n < outDim; n++) {
      weights[k * outDim + n] = Math.round((kernel[k * outDim + n] ?? 0) / (scales[n] ?? 1)) + shift;
    }
  }
  return { weights, scales, zeroPoints: unsigned ? new Uint8Array(outDim).fill(128) : undefined };
}

/**
 * Builds an ONNX model that computes exactly the USE-lite "KonaTransformer" of model.json:
 * two pre-norm transformer layers (4 heads; 256→512 then 512), ReLU FFN 1536, masked mean
 * pooling and the tanh layer. Mirrors the TF graph's masking: FFN and the layer-0 residual
 * projection are zero at padding positions; padding keys get a -1e9 attention bias. With
 * `int8Weights`, the FFN runs quantised (vectors within cosine 0.9996 of float32 on LoCoMo).
 */
export function buildUseLiteOnnx(w: UseLiteWeights, options: UseLiteGraphOptions = {}): Uint8Array {
  const nodes: OnnxNode[] = [];
  const initializers: OnnxTensor[] = [];
  let counter = 0;
  const tmp = (prefix: string): string => `${prefix}_${counter++}`;
  const init = (name: string, dims: number[], data: OnnxTensor['data']): string => {
    initializers.push({ name, dims, data });
    return name;
  };
  const op = (type: string, inputs: string[], attrs?: Record<string, OnnxAttr>, outName?: string): string => {
    const out = outName ?? tmp(type.toLowerCase());
    nodes.push({ op: type, inputs, outputs: [out], ...(attrs ? { attrs } : {}) });
    return out;
  };
  const ints = (name: string, values: number[]): string =>
    init(name, [values.length], BigInt64Array.from(values.map((v) => BigInt(v))));
  const scalarF = (name: string, value: number): string => init(name, [], Float32Array.of(value));

  const dense = (x: string, kernel: string, bias: string): string => op('Add', [op('MatMul', [x, kernel]), bias]);
  const io = USE_LITE_ONNX_IO;
  /**
   * x·W + b with W quantised to 8 bits per output column and x per pass (onnxruntime's
   * DynamicQuantizeMatMul). Both weight formats give the same integer products.
   */
  const qdense = (
    name: string,
    x: string,
    kernel: Float32Array,
    bias: Float32Array,
    inDim: number,
    outDim: number,
  ): string => {
    const { weights, scales, zeroPoints } = quantizeColumns(kernel, inDim, outDim, options.int8Weights === 'uint8');
    const out = tmp('qmatmul');
    nodes.push({
      op: 'DynamicQuantizeMatMul',
      domain: 'com.microsoft',
      inputs: [
        x,
        init(`${name}.q`, [inDim, outDim], weights),
        init(`${name}.s`, [outDim], scales),
        zeroPoints ? init(`${name}.z`, [outDim], zeroPoints) : '',
        init(`${name}.b`, [outDim], bias),
      ],
      outputs: [out],
    });
    return out;
  };
  /** The FFN layers (two thirds of the work) may run on int8; everything else stays float32. */
  const ffn = (
    name: string,
    x: string,
    kernel: Float32Array,
    bias: Float32Array,
    inDim: number,
    outDim: number,
  ): string =>
    options.int8Weights
      ? qdense(name, x, kernel, bias, inDim, outDim)
      : dense(x, init(`${name}.w`, [inDim, outDim], kernel), init(`${name}.b`, [outDim], bias));

  const layerNorm = (x: string, scale: string, bias: string): string =>
    op('LayerNormalization', [x, scale, bias], { axis: -1, epsilon: { float: 1e-6 } });

  const attention = (p: string, x: string, lw: UseLiteLayerWeights): string => {
    const d = lw.inDim;
    const qkv = dense(x, init(`${p}.qkv.w`, [d, 3 * d], lw.qkvKernel), init(`${p}.qkv.b`, [3 * d], lw.qkvBias));
    const q = tmp('q');
    const k = tmp('k');
    const v = tmp('v');
    nodes.push({ op: 'Split', inputs: [qkv, ints(`${p}.split`, [d, d, d])], outputs: [q, k, v], attrs: { axis: -1 } });
    const headsShape = ints(`${p}.heads`, [0, 0, 4, lw.headDim]);
    const qh = op('Transpose', [op('Reshape', [q, headsShape])], { perm: [0, 2, 1, 3] });
    const kh = op('Transpose', [op('Reshape', [k, headsShape])], { perm: [0, 2, 3, 1] });
    const vh = op('Transpose', [op('Reshape', [v, headsShape])], { perm: [0, 2, 1, 3] });
    const scaled = op('Mul', [qh, scalarF(`${p}.scale`, lw.attnScale)]);
    const logits = op('Add', [op('MatMul', [scaled, kh]), io.bias]);
    const weights = op('Softmax', [logits], { axis: -1 });
    const ctx = op('Transpose', [op('MatMul', [weights, vh])], { perm: [0, 2, 1, 3] });
    const merged = op('Reshape', [ctx, ints(`${p}.merge`, [0, 0, d])]);
    return dense(merged, init(`${p}.out.w`, [d, 512], lw.outKernel), init(`${p}.out.b`, [512], lw.outBias));
  };

  const layer = (i: number, x: string, lw: UseLiteLayerWeights): string => {
    const p = `l${i}`;
    const d = lw.inDim;
    const normed = layerNorm(x, init(`${p}.ln.s`, [d], lw.lnScale), init(`${p}.ln.b`, [d], lw.lnBias));
    const attn = attention(p, normed, lw);
    let residual = x;
    if (lw.residualKernel && lw.residualBias) {
      const projected = dense(
        x,
        init(`${p}.res.w`, [256, 512], lw.residualKernel),
        init(`${p}.res.b`, [512], lw.residualBias),
      );
      residual = op('Mul', [projected, io.mask]);
    }
    const h = op('Add', [attn, residual]);
    const normed2 = layerNorm(h, init(`${p}.ffln.s`, [512], lw.ffnLnScale), init(`${p}.ffln.b`, [512], lw.ffnLnBias));
    const hidden = op('Relu', [ffn(`${p}.ff1`, normed2, lw.ffn1Kernel, lw.ffn1Bias, 512, 1536)]);
    const ff = ffn(`${p}.ff2`, hidden, lw.ffn2Kernel, lw.ffn2Bias, 1536, 512);
    return op('Add', [op('Mul', [ff, io.mask]), h]);
  };

  let h = layer(0, io.x, w.layers[0]);
  h = layer(1, h, w.layers[1]);
  const summed = op('ReduceSum', [op('Mul', [h, io.mask]), ints('pool.axes', [1])], { keepdims: 0 });
  const pooled = op('Div', [summed, io.count]);
  op(
    'Tanh',
    [dense(pooled, init('tanh.w', [512, 512], w.tanhKernel), init('tanh.b', [512], w.tanhBias))],
    undefined,
    io.y,
  );

  return encodeOnnxModel({
    name: 'use-lite',
    nodes,
    initializers,
    inputs: [
      { name: io.x, elemType: OnnxType.FLOAT, shape: ['batch', 'len', 256] },
      { name: io.mask, elemType: OnnxType.FLOAT, shape: ['batch', 'len', 1] },
      { name: io.bias, elemType: OnnxType.FLOAT, shape: ['batch', 1, 1, 'len'] },
      { name: io.count, elemType: OnnxType.FLOAT, shape: ['batch', 1] },
    ],
    outputs: [{ name: io.y, elemType: OnnxType.FLOAT, shape: ['batch', 512] }],
  });
}

import { encodeOnnxModel, type OnnxAttr, type OnnxGraph, type OnnxNode, type OnnxTensor } from './onnx-proto.js';

/**
 * Collects the nodes and initializers of an ONNX graph under generated names, with the few
 * composite layers our graphs use; {@link finish} serialises it.
 */
export class OnnxGraphBuilder {
  private readonly nodes: OnnxNode[] = [];
  private readonly initializers: OnnxTensor[] = [];
  private counter = 0;

  /** A fresh value name. */
  tmp(prefix: string): string {
    return `${prefix}_${this.counter++}`;
  }

  /** Adds a constant tensor and returns its name. */
  init(name: string, dims: number[], data: OnnxTensor['data']): string {
    this.initializers.push({ name, dims, data });
    return name;
  }

  /** An int64 vector constant. */
  ints(name: string, values: number[]): string {
    return this.init(name, [values.length], BigInt64Array.from(values.map((v) => BigInt(v))));
  }

  /** A float32 scalar constant. */
  scalar(name: string, value: number): string {
    return this.init(name, [], Float32Array.of(value));
  }

  /** Adds a node with one output and returns the output's name. */
  op(type: string, inputs: string[], attrs?: Record<string, OnnxAttr>, outName?: string): string {
    const out = outName ?? this.tmp(type.toLowerCase());
    this.nodes.push({ op: type, inputs, outputs: [out], ...(attrs ? { attrs } : {}) });
    return out;
  }

  /** Adds a node with several outputs (or a contrib op in another domain). */
  node(node: OnnxNode): void {
    this.nodes.push(node);
  }

  /** x·W + b with a float32 [inDim, outDim] kernel. */
  dense(name: string, x: string, kernel: Float32Array, bias: Float32Array, inDim: number, outDim: number): string {
    const w = this.init(`${name}.w`, [inDim, outDim], kernel);
    return this.op('Add', [this.op('MatMul', [x, w]), this.init(`${name}.b`, [outDim], bias)]);
  }

  /**
   * x·W + b with W quantised to 8 bits per output column (signed, or unsigned with zero point
   * 128) and x quantised per pass: onnxruntime's DynamicQuantizeMatMul.
   */
  quantizedDense(
    name: string,
    x: string,
    kernel: Float32Array,
    bias: Float32Array,
    inDim: number,
    outDim: number,
    unsigned: boolean,
  ): string {
    const { weights, scales, zeroPoints } = quantizeColumns(kernel, inDim, outDim, unsigned);
    const out = this.tmp('qmatmul');
    this.nodes.push({
      op: 'DynamicQuantizeMatMul',
      domain: 'com.microsoft',
      inputs: [
        x,
        this.init(`${name}.q`, [inDim, outDim], weights),
        this.init(`${name}.s`, [outDim], scales),
        zeroPoints ? this.init(`${name}.z`, [outDim], zeroPoints) : '',
        this.init(`${name}.b`, [outDim], bias),
      ],
      outputs: [out],
    });
    return out;
  }

  /** LayerNormalization over the last axis. */
  layerNorm(name: string, x: string, scale: Float32Array, bias: Float32Array, epsilon: number): string {
    const dims = [scale.length];
    return this.op('LayerNormalization', [x, this.init(`${name}.s`, dims, scale), this.init(`${name}.b`, dims, bias)], {
      axis: -1,
      epsilon: { float: epsilon },
    });
  }

  /** The ONNX model bytes. */
  finish(graph: Omit<OnnxGraph, 'nodes' | 'initializers'>): Uint8Array {
    return encodeOnnxModel({ ...graph, nodes: this.nodes, initializers: this.initializers });
  }
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

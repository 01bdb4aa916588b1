/**
 * A minimal writer for the ONNX protobuf format: just enough to describe a small inference
 * graph (nodes, float/int64 initializers, typed inputs and outputs) and serialize it to the
 * bytes that `onnxruntime` loads. No protobuf library, no generated code.
 */

/** ONNX tensor element types used here. */
export const OnnxType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7 } as const;
export type OnnxElemType = (typeof OnnxType)[keyof typeof OnnxType];

/** An attribute value: int, float, int list or string. */
export type OnnxAttr = number | bigint | number[] | string | { float: number };

export interface OnnxNode {
  op: string;
  /** Operator set of the op, e.g. 'com.microsoft' for onnxruntime's contrib ops. @default '' (ONNX) */
  domain?: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, OnnxAttr>;
}

export interface OnnxTensor {
  name: string;
  dims: number[];
  data: Float32Array | BigInt64Array | Int32Array | Int8Array | Uint8Array;
}

export interface OnnxValueInfo {
  name: string;
  elemType: OnnxElemType;
  /** Each dimension is a fixed size or a symbolic name. */
  shape: Array<number | string>;
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
  /** @default 17 */
  opset?: number;
}

/** Growable byte buffer with protobuf primitives. */
class Writer {
  private buf = new Uint8Array(1024);
  private len = 0;

  private ensure(extra: number): void {
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  varint(value: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(value));
    this.ensure(10);
    while (v >= 0x80n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }

  tag(field: number, wire: 0 | 1 | 2 | 5): void {
    this.varint((field << 3) | wire);
  }

  bytes(field: number, data: Uint8Array): void {
    this.tag(field, 2);
    this.varint(data.length);
    this.ensure(data.length);
    this.buf.set(data, this.len);
    this.len += data.length;
  }

  string(field: number, value: string): void {
    this.bytes(field, new TextEncoder().encode(value));
  }

  int(field: number, value: number | bigint): void {
    this.tag(field, 0);
    this.varint(value);
  }

  float(field: number, value: number): void {
    this.tag(field, 5);
    this.ensure(4);
    new DataView(this.buf.buffer, this.buf.byteOffset + this.len, 4).setFloat32(0, value, true);
    this.len += 4;
  }

  message(field: number, write: (w: Writer) => void): void {
    const inner = new Writer();
    write(inner);
    this.bytes(field, inner.finish());
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }
}

function littleEndianBytes(data: OnnxTensor['data']): Uint8Array {
  // Every supported platform of onnxruntime is little-endian, as are typed arrays there.
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

function elemTypeOf(data: OnnxTensor['data']): OnnxElemType {
  if (data instanceof Float32Array) return OnnxType.FLOAT;
  if (data instanceof BigInt64Array) return OnnxType.INT64;
  if (data instanceof Int8Array) return OnnxType.INT8;
  if (data instanceof Uint8Array) return OnnxType.UINT8;
  return OnnxType.INT32;
}

function writeTensor(w: Writer, t: OnnxTensor): void {
  for (const d of t.dims) w.int(1, d);
  w.int(2, elemTypeOf(t.data));
  w.string(8, t.name);
  w.bytes(9, littleEndianBytes(t.data));
}

function writeAttr(w: Writer, name: string, value: OnnxAttr): void {
  w.string(1, name);
  if (typeof value === 'string') {
    w.bytes(4, new TextEncoder().encode(value));
    w.int(20, 3);
  } else if (Array.isArray(value)) {
    for (const v of value) w.int(8, v);
    w.int(20, 7);
  } else if (typeof value === 'object') {
    w.float(2, value.float);
    w.int(20, 1);
  } else {
    w.int(3, value);
    w.int(20, 2);
  }
}

function writeValueInfo(w: Writer, v: OnnxValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, v.elemType);
      tensor.message(2, (shape) => {
        for (const d of v.shape) {
          shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
        }
      });
    }),
  );
}

/** Serializes a graph as an ONNX ModelProto (IR version 8). */
export function encodeOnnxModel(graph: OnnxGraph): Uint8Array {
  const w = new Writer();
  w.int(1, 8); // ir_version
  w.string(2, 'engram');
  w.message(7, (g) => {
    graph.nodes.forEach((node, i) => {
      g.message(1, (n) => {
        for (const input of node.inputs) n.string(1, input);
        for (const output of node.outputs) n.string(2, output);
        n.string(3, `${node.op}_${i}`);
        n.string(4, node.op);
        if (node.domain) n.string(7, node.domain);
        for (const [name, value] of Object.entries(node.attrs ?? {})) {
          n.message(5, (a) => writeAttr(a, name, value));
        }
      });
    });
    g.string(2, graph.name);
    for (const t of graph.initializers) g.message(5, (tw) => writeTensor(tw, t));
    for (const v of graph.inputs) g.message(11, (vw) => writeValueInfo(vw, v));
    for (const v of graph.outputs) g.message(12, (vw) => writeValueInfo(vw, v));
  });
  w.message(8, (o) => {
    o.string(1, '');
    o.int(2, graph.opset ?? 17);
  });
  for (const domain of new Set(graph.nodes.map((n) => n.domain ?? '').filter((d) => d !== ''))) {
    w.message(8, (o) => {
      o.string(1, domain);
      o.int(2, 1);
    });
  }
  return w.finish();
}

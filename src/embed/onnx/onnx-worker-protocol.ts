/** Messages between {@link OnnxSessionPool} and its worker threads (one ONNX session each). */

/** A tensor as it crosses the thread boundary: a typed array (transferred) and its shape. */
export type TensorData =
  { type: 'float32'; data: Float32Array; dims: number[] } | { type: 'int64'; data: BigInt64Array; dims: number[] };

/** What a worker is started with. */
export interface WorkerInit {
  /** The model: ONNX bytes, or the path of a .onnx file the worker reads itself. */
  model: Uint8Array | string;
  /** onnxruntime intra-op threads of this worker's session. */
  threads: number;
}

/** The first message a worker sends: its session is ready, or could not be created. */
export type WorkerHello =
  { kind: 'ready'; inputNames: string[]; outputNames: string[] } | { kind: 'failed'; message: string };

export interface WorkerRequest {
  id: number;
  feeds: Record<string, TensorData>;
  /** Output names to return. */
  outputs: string[];
}

export type WorkerReply = { id: number; outputs: Record<string, TensorData> } | { id: number; error: string };

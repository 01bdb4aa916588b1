/** Messages between the main thread and an ONNX worker thread (which holds any number of sessions). */

/** A tensor as it crosses the thread boundary: a typed array (transferred) and its shape. */
export type TensorData =
  { type: 'float32'; data: Float32Array; dims: number[] } | { type: 'int64'; data: BigInt64Array; dims: number[] };

/** The worker's first message: onnxruntime-node loaded in it, or could not be. */
export type WorkerHello = { kind: 'loaded' } | { kind: 'load-failed'; message: string };

/** Creates a session; answered with {@link OpenedReply}. */
export interface OpenRequest {
  kind: 'open';
  id: number;
  /** The model: ONNX bytes (a SharedArrayBuffer view, shared not copied), or the path of a .onnx file. */
  model: Uint8Array | string;
  /** onnxruntime intra-op threads of the session. */
  threads: number;
}

/** One forward pass of a session; answered with {@link RanReply}. */
export interface RunRequest {
  kind: 'run';
  id: number;
  /** The id of the `open` request that created the session. */
  session: number;
  feeds: Record<string, TensorData>;
  /** Output names to return. */
  outputs: string[];
}

/** Releases a session's native memory (`session.release()`); answered with {@link ReleasedReply}. */
export interface ReleaseRequest {
  kind: 'release';
  id: number;
  session: number;
}

export type WorkerRequest = OpenRequest | RunRequest | ReleaseRequest;

export interface OpenedReply {
  kind: 'opened';
  id: number;
  inputNames: string[];
  outputNames: string[];
}
export interface RanReply {
  kind: 'ran';
  id: number;
  outputs: Record<string, TensorData>;
}
export interface ReleasedReply {
  kind: 'released';
  id: number;
}
export interface FailedReply {
  kind: 'failed';
  id: number;
  message: string;
}

export type WorkerReply = OpenedReply | RanReply | ReleasedReply | FailedReply;

/** The reply a request gets when it succeeds. */
export type ReplyTo<R extends WorkerRequest> = R extends OpenRequest
  ? OpenedReply
  : R extends RunRequest
    ? RanReply
    : ReleasedReply;

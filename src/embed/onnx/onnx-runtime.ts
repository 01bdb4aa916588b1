/**
 * The part of onnxruntime-node's API that Engram uses, declared here because the release Engram
 * pins (1.17.0: the last one whose install runs no download script) ships no type declarations.
 */
export interface OrtTensor {
  readonly data: unknown;
  readonly dims: readonly number[];
}

export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, OrtTensor>, fetches?: string[]): Promise<Record<string, OrtTensor>>;
  /** Frees the session's native memory; the session cannot run afterwards. */
  release(): Promise<void>;
}

export interface OrtSessionOptions {
  executionProviders?: string[];
  graphOptimizationLevel?: 'disabled' | 'basic' | 'extended' | 'all';
  executionMode?: 'sequential' | 'parallel';
  intraOpNumThreads?: number;
  interOpNumThreads?: number;
}

export interface OrtModule {
  InferenceSession: { create(model: string | Uint8Array, options?: OrtSessionOptions): Promise<OrtSession> };
  Tensor: new (type: 'float32' | 'int64', data: Float32Array | BigInt64Array, dims: readonly number[]) => OrtTensor;
}

/** Package name, in a variable: its types are the interfaces above, not a missing declaration file. */
const RUNTIME_PACKAGE: string = 'onnxruntime-node';

/** Imports onnxruntime-node (rejects as `import()` does when it is not installed). */
export async function importOnnxRuntime(): Promise<OrtModule> {
  const mod = (await import(RUNTIME_PACKAGE)) as Partial<OrtModule> & { default?: OrtModule };
  return mod.InferenceSession && mod.Tensor ? (mod as OrtModule) : (mod.default as OrtModule);
}

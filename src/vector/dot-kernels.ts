import { DOT_KERNELS_BASE64 } from './dot-kernels-binary.js';

/**
 * The WebAssembly SIMD kernels of dot-kernels.wat over one memory whose rows of `dim` float32
 * values start at byte 0. Each reads the query as `dim` float64 values at byte `query` and `n`
 * row numbers as int32 at byte `slots`, and writes `n` float64 sums at byte `out` (with room for 4
 * more).
 */
export interface DotKernels {
  /** `dotAt`'s four strided partial sums, added as `(s0 + s1) + (s2 + s3)`, unclamped. */
  strided(query: number, slots: number, n: number, dim: number, out: number): void;
  /** `sequentialDots`: one sum per row in index order. */
  sequential(query: number, slots: number, n: number, dim: number, out: number): void;
}

/** A WebAssembly memory: 64 KiB pages; growing it detaches the last `buffer`. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/** The part of the WebAssembly API used here (Node's types do not declare it). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number }) => WasmMemory;
}

const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
let compiled: object | null | undefined;

/** The kernels' module, compiled once (about 1 kB); null where the runtime has no WebAssembly SIMD. */
function kernelsModule(): object | null {
  if (compiled === undefined) {
    try {
      compiled = wasm ? new wasm.Module(Buffer.from(DOT_KERNELS_BASE64, 'base64')) : null;
    } catch {
      compiled = null;
    }
  }
  return compiled;
}

/**
 * A new memory of `pages` pages and the kernels over it; null where the runtime cannot run them.
 * Throws a RangeError when the engine cannot reserve the memory.
 */
export function kernelMemory(pages: number): { memory: WasmMemory; kernels: DotKernels } | null {
  const module = kernelsModule();
  if (module === null || wasm === undefined) return null;
  const memory = new wasm.Memory({ initial: pages });
  const { exports } = new wasm.Instance(module, { env: { memory } });
  return { memory, kernels: exports as DotKernels };
}

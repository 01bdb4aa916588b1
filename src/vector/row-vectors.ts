import { kernelMemory, type DotKernels, type WasmMemory } from './dot-kernels.js';
import { sequentialDots } from './sequential-dots.js';
import { clampDot, dotsAt } from './strided-dots.js';

const PAGE_BYTES = 65_536;
/** Most rows one WebAssembly call scores: its query, row numbers and results fit in the room kept for them. */
const SCRATCH_ROWS = 4096;

/** Where {@link RowVectors} keeps its rows. */
export interface RowVectorsOptions {
  /** Rows move into WebAssembly memory (their dot products then run in SIMD) once they take this many bytes. @default 1 MiB */
  residentFrom?: number | undefined;
  /** …and stay there up to this many (one 32-bit memory holds at most 4 GiB); beyond, they move back. @default 2 GiB */
  residentUpTo?: number | undefined;
}

/**
 * Rows of `dim` float32 values, one after another, and the two dot products a recall takes of a
 * query with chosen rows: {@link dotsAt}'s strided sum and {@link sequentialDots}' (`cosine`'s),
 * each bit for bit. Small sets of rows live in a JavaScript array and are summed there; large ones
 * in a WebAssembly memory of their own, where the same sums run in SIMD, several times faster
 * (dot-kernels.wat). A memory is only made for large rows because each one reserves address
 * space of its own.
 */
export class RowVectors {
  readonly dim: number;
  private readonly residentFrom: number;
  private readonly residentUpTo: number;
  private rows: number;
  private array: Float32Array;
  private memory: WasmMemory | null = null;
  private kernels: DotKernels | null = null;
  /** The whole memory as float64 and int32 (query, row numbers, results), and where the room past the rows starts. */
  private f64: Float64Array = new Float64Array(0);
  private i32: Int32Array = new Int32Array(0);
  private scratch = 0;

  constructor(dim: number, capacity: number, options: RowVectorsOptions = {}) {
    this.dim = dim;
    this.residentFrom = options.residentFrom ?? 1024 * 1024;
    this.residentUpTo = options.residentUpTo ?? 2 * 1024 * 1024 * 1024;
    this.rows = 0;
    this.array = new Float32Array(0);
    this.resize(Math.max(1, capacity));
  }

  /** Every row held ({@link capacity} of them). A view: read it again after {@link reserve}. */
  get data(): Float32Array {
    return this.array;
  }

  /** Rows there is room for. */
  get capacity(): number {
    return this.rows;
  }

  /** Whether the rows live in WebAssembly memory. */
  get resident(): boolean {
    return this.kernels !== null;
  }

  /** Bytes held (a memory's room for one call's query, row numbers and results included). */
  get bytes(): number {
    return this.memory?.buffer.byteLength ?? this.array.byteLength;
  }

  /** Room for at least `rows` rows (at least twice the room there was), the rows held kept. */
  reserve(rows: number): void {
    if (rows > this.rows) this.resize(Math.max(2 * this.rows, rows));
  }

  /** `dotsAt(data, dim, slots, query)`, bit for bit. `query` has `dim` values; every slot is below {@link capacity}. */
  stridedDots(slots: readonly number[], query: Float32Array): Float64Array {
    const sums = this.run('strided', slots, query);
    if (sums === null) return dotsAt(this.array, this.dim, slots, query);
    for (let j = 0; j < sums.length; j++) sums[j] = clampDot(sums[j] as number);
    return sums;
  }

  /** `sequentialDots(data, dim, rows, query)`, bit for bit. `query` has `dim` values; every row is below {@link capacity}. */
  sequentialDots(rows: ArrayLike<number>, query: Float32Array): Float64Array {
    return this.run('sequential', rows, query) ?? sequentialDots(this.array, this.dim, rows, query);
  }

  /** A kernel's sums, or null where it cannot run (rows not resident, too many asked, another length). */
  private run(kernel: keyof DotKernels, slots: ArrayLike<number>, query: Float32Array): Float64Array | null {
    const { kernels, dim } = this;
    const n = slots.length;
    if (kernels === null || n > SCRATCH_ROWS || query.length !== dim) return null;
    const q = this.scratch;
    const slotsAt = q + roundUp(dim * 8, 16);
    const out = slotsAt + roundUp(n * 4, 16);
    const { f64, i32 } = this;
    for (let i = 0, at = q / 8; i < dim; i++) f64[at + i] = query[i] as number;
    for (let j = 0, at = slotsAt / 4; j < n; j++) i32[at + j] = slots[j] as number;
    kernels[kernel](q, slotsAt, n, dim, out);
    return f64.slice(out / 8, out / 8 + n);
  }

  private resize(capacity: number): void {
    const length = capacity * this.dim;
    const wasResident = this.memory !== null;
    const resident = this.residentArray(length);
    if (resident !== null) {
      // A grown memory keeps its bytes; rows coming from a JavaScript array are copied in.
      if (!wasResident) resident.set(this.array.subarray(0, Math.min(this.array.length, length)));
      this.array = resident;
    } else {
      const array = new Float32Array(length);
      array.set(this.array.subarray(0, Math.min(this.array.length, length)));
      this.array = array;
      this.memory = null;
      this.kernels = null;
      this.f64 = new Float64Array(0);
      this.i32 = new Int32Array(0);
    }
    this.rows = capacity;
  }

  /**
   * A view of `length` floats at byte 0 of this set's memory, made or grown to hold them and the
   * room for one call; null (the memory untouched) when the rows should not or cannot live there.
   */
  private residentArray(length: number): Float32Array | null {
    const rowBytes = length * 4;
    if (rowBytes < this.residentFrom || rowBytes > this.residentUpTo) return null;
    const scratch = roundUp(rowBytes, 16);
    const pages = Math.ceil(
      (scratch + roundUp(this.dim * 8, 16) + roundUp(SCRATCH_ROWS * 4, 16) + (SCRATCH_ROWS + 4) * 8) / PAGE_BYTES,
    );
    try {
      if (this.memory === null) {
        const made = kernelMemory(pages);
        if (made === null) return null;
        this.memory = made.memory;
        this.kernels = made.kernels;
      } else {
        const held = this.memory.buffer.byteLength / PAGE_BYTES;
        if (pages > held) this.memory.grow(pages - held);
      }
    } catch {
      // The engine could not reserve or grow the memory: the rows stay in a JavaScript array.
      return null;
    }
    const buffer = this.memory.buffer;
    this.f64 = new Float64Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.scratch = scratch;
    return new Float32Array(buffer, 0, length);
  }
}

function roundUp(bytes: number, to: number): number {
  return Math.ceil(bytes / to) * to;
}

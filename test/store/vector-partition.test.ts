import { describe, expect, it } from 'vitest';
import { VectorPartition } from '../../src/store/sqlite/vector-partition.js';
import { maxCosine } from '../../src/vector/max-cosine.js';
import type { RowVectorsOptions } from '../../src/vector/row-vectors.js';
import { unitVector } from '../../src/vector/unit-cosine.js';
import { jsCosine, seededRandom, slotMeta } from './fixtures/records.js';

/** Queries as the store passes them: unit length. */
function queries(seed: number, n: number, shared: number): Float32Array[] {
  return rows(seed, n, shared).map((v) => unitVector(v) as Float32Array);
}

const DIM = 64;

/** Unit-scale Gaussian vectors; with `shared`, every row also carries the same large first components. */
function rows(seed: number, n: number, shared: number): Float32Array[] {
  const random = seededRandom(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(Math.max(random(), 1e-12))) * Math.cos(2 * Math.PI * random());
  return Array.from({ length: n }, () => {
    const v = new Float32Array(DIM);
    for (let i = 0; i < DIM; i++) v[i] = i < 4 ? shared + gauss() * 0.01 : gauss() * 0.03;
    return v;
  });
}

/** Vectors in a JavaScript array (these partitions are small), or in WebAssembly memory from the first row. */
const PLACES = [
  { where: 'a JavaScript array', rows: undefined },
  { where: 'WebAssembly memory', rows: { residentFrom: 0 } },
];

function load(vectors: Float32Array[], quantizeAbove: number, rowsOptions?: RowVectorsOptions): VectorPartition {
  const partition = new VectorPartition(DIM, vectors.length, { quantizeAbove, rows: rowsOptions });
  partition.bulkLoad(() => vectors.forEach((v, i) => partition.upsert(`r${i}`, slotMeta(i + 1), v)));
  return partition;
}

function exactTop(vectors: Float32Array[], query: Float32Array, k: number): string[] {
  return vectors
    .map((v, i) => ({ id: `r${i}`, score: jsCosine(v, query) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, k)
    .map((r) => r.id);
}

describe.each(PLACES)('VectorPartition int8 pre-selection, vectors in $where', ({ rows: rowsOptions }) => {
  it('is used for ordinary embeddings and returns the exact top 100', () => {
    const vectors = rows(1, 3000, 0);
    const partition = load(vectors, 1000, rowsOptions);
    expect(partition.quantized).toBe(true);
    for (const query of queries(2, 20, 0)) {
      expect(partition.search(query, 100, null).map((h) => h.id)).toEqual(exactTop(vectors, query, 100));
    }
  });

  it('is refused when every row shares a few large components, and search stays exact', () => {
    // One scale for all dimensions leaves the small, informative components a few int8 steps.
    const vectors = rows(3, 3000, 0.5);
    const partition = load(vectors, 1000, rowsOptions);
    expect(partition.quantized).toBe(false);
    for (const query of queries(4, 20, 0.5)) {
      expect(partition.search(query, 100, null).map((h) => h.id)).toEqual(exactTop(vectors, query, 100));
    }
  });

  it('keeps ties among duplicate rows from counting against int8', () => {
    const base = rows(5, 1500, 0);
    const vectors = [...base, ...base.map((v) => Float32Array.from(v))];
    expect(load(vectors, 1000).quantized).toBe(true);
  });
});

describe.each(PLACES)('VectorPartition.storedCosines, vectors in $where', ({ rows: rowsOptions }) => {
  /** Unit vectors the partition keeps as given (re-normalising changes no bit), with squared norms not exactly 1. */
  const kept = (seed: number, n: number): Float32Array[] =>
    queries(seed, n * 4, 0)
      .filter((v) => {
        const again = unitVector(v) as Float32Array;
        return again.every((x, i) => x === v[i]);
      })
      .slice(0, n);

  it('gives maxCosine of the rows held as given, bit for bit, through replacements, removals and growth', () => {
    const vectors = kept(3, 12);
    expect(vectors).toHaveLength(12);
    const partition = new VectorPartition(DIM, 2, { quantizeAbove: Infinity, rows: rowsOptions });
    vectors.forEach((v, i) => partition.upsert(`r${i}`, slotMeta(i + 1), v));
    // A rescaled row is left to the caller; a replaced row is scored from its new vector.
    partition.upsert('r0', slotMeta(1), Float32Array.from(vectors[0] as Float32Array, (x) => x * 3));
    partition.upsert('r1', slotMeta(2), vectors[11] as Float32Array);
    // Removing a middle row moves the last one into its slot.
    partition.remove('r4');
    const held = new Map(vectors.map((v, i) => [`r${i}`, v]));
    held.delete('r0');
    held.delete('r4');
    held.set('r1', vectors[11] as Float32Array);
    const qs = queries(9, 3, 0);
    const got = partition.storedCosines([...held.keys(), 'r0', 'r4', 'nope'], qs);
    expect([...got.keys()].sort()).toEqual([...held.keys()].sort());
    for (const [id, v] of held) {
      expect(Object.is(got.get(id), maxCosine(v, qs)), id).toBe(true);
    }
  });
});

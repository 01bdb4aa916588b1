import { execFileSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import { maxCosine, maxCosinesOfRows, squaredNorm } from '../../src/vector/max-cosine.js';
import { RowVectors } from '../../src/vector/row-vectors.js';
import { sequentialDots } from '../../src/vector/sequential-dots.js';
import { dotsAt } from '../../src/vector/strided-dots.js';
import { seededRandom } from '../store/fixtures/records.js';

/** Rows in WebAssembly memory from the first byte. */
const RESIDENT = { residentFrom: 0 };

/** `rows` random rows of `dim` values in [-1, 1), one far beyond unit length and one holding a NaN. */
function filled(rows: RowVectors, count: number, random: () => number): void {
  const { data, dim } = rows;
  for (let i = 0; i < count * dim; i++) data[i] = random() * 2 - 1;
  if (count > 2) for (let i = 0; i < dim; i++) data[2 * dim + i] = 40;
  if (count > 5) data[5 * dim] = Number.NaN;
}

function sameBits(actual: Float64Array, expected: Float64Array, label: string): void {
  expect(actual.length, label).toBe(expected.length);
  expected.forEach((value, j) =>
    expect(Object.is(actual[j], value), `${label} #${j}: ${actual[j]} vs ${value}`).toBe(true),
  );
}

describe('RowVectors', () => {
  it('sums in WebAssembly exactly as the JavaScript loops do, for every dimension mod 4 and row count', () => {
    const random = seededRandom(5);
    for (const dim of [1, 2, 3, 4, 5, 8, 13, 64, 383, 384]) {
      const count = 11;
      const rows = new RowVectors(dim, count, RESIDENT);
      expect(rows.resident).toBe(true);
      filled(rows, count, random);
      const query = Float32Array.from({ length: dim }, () => random() * 2 - 1);
      for (const slots of [
        [],
        [4],
        [3, 1],
        [8, 2, 5],
        [8, 2, 5, 5, 0, 7, 6],
        [...Array(count).keys()],
        [10, 9, 10, 9, 1],
      ]) {
        const label = `dim ${dim}, slots ${slots.join(',')}`;
        sameBits(rows.stridedDots(slots, query), dotsAt(rows.data, dim, slots, query), `strided ${label}`);
        sameBits(
          rows.sequentialDots(slots, query),
          sequentialDots(rows.data, dim, slots, query),
          `sequential ${label}`,
        );
      }
    }
  });

  it('gives maxCosine bit for bit through maxCosinesOfRows, over one and several queries', () => {
    const random = seededRandom(9);
    const dim = 96;
    const count = 203;
    const rows = new RowVectors(dim, count, RESIDENT);
    filled(rows, count, random);
    const picked = Array.from({ length: 150 }, (_, j) => (j * 37) % count);
    const squaredNorms = picked.map((r) => squaredNorm(rows.data, r * dim, dim));
    const dots = (query: Float32Array) => rows.sequentialDots(picked, query);
    for (const n of [1, 3]) {
      const queries = Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => random() * 2 - 1));
      const cosines = maxCosinesOfRows({ data: rows.data, dim, rows: picked, squaredNorms, dots }, queries);
      picked.forEach((r, j) => {
        const stored = rows.data.slice(r * dim, (r + 1) * dim);
        expect(Object.is(cosines[j], maxCosine(stored, queries)), `row ${r}`).toBe(true);
      });
    }
  });

  it('keeps its rows through growth, moving into WebAssembly memory past residentFrom and out past residentUpTo', () => {
    const random = seededRandom(13);
    const dim = 16;
    const rows = new RowVectors(dim, 4, { residentFrom: 128 * dim * 4, residentUpTo: 512 * dim * 4 });
    const expected: number[] = [];
    const held = (): number[] => Array.from(rows.data.subarray(0, expected.length));
    const add = (count: number): void => {
      for (let r = 0; r < count; r++) {
        const at = expected.length;
        rows.reserve(at / dim + 1);
        for (let i = 0; i < dim; i++) {
          const value = Math.fround(random());
          rows.data[at + i] = value;
          expected.push(value);
        }
      }
    };
    const query = Float32Array.from({ length: dim }, () => random());
    const check = (): void => {
      expect(held()).toEqual(expected);
      const slots = Array.from({ length: expected.length / dim }, (_, j) => j);
      sameBits(rows.stridedDots(slots, query), dotsAt(rows.data, dim, slots, query), 'strided');
    };
    add(40);
    expect(rows.resident).toBe(false);
    check();
    add(60);
    expect(rows.resident).toBe(true);
    expect(rows.capacity).toBeGreaterThanOrEqual(100);
    check();
    add(200);
    expect(rows.resident).toBe(true);
    check();
    add(300);
    expect(rows.resident).toBe(false);
    expect(rows.capacity).toBeGreaterThanOrEqual(600);
    check();
  });

  it('scores more rows than one call has room for with the JavaScript loops, the same numbers', () => {
    const random = seededRandom(17);
    const dim = 8;
    const rows = new RowVectors(dim, 64, RESIDENT);
    filled(rows, 64, random);
    const slots = Array.from({ length: 5000 }, (_, j) => (j * 7) % 64);
    const query = Float32Array.from({ length: dim }, () => random() * 2 - 1);
    sameBits(rows.stridedDots(slots, query), dotsAt(rows.data, dim, slots, query), 'strided');
    sameBits(rows.sequentialDots(slots, query), sequentialDots(rows.data, dim, slots, query), 'sequential');
  });

  it('is assembled from dot-kernels.wat as committed (npm run build:wasm)', () => {
    const script = new URL('../../scripts/build-wasm.mjs', import.meta.url).pathname;
    // Exits 1 (execFileSync throws) when the committed bytes are not the source's.
    expect(execFileSync(process.execPath, [script, '--check'], { encoding: 'utf8' })).toContain('matches');
  });
});

/**
 * How deep a cheap pre-selection scan must reach to hold the exact dense pool, for the int8 copy
 * the vector cache scans today and for sign bits (binary codes, 1 bit per dimension).
 *
 *   npx tsx bench/preselection-depth.ts [--sizes 10000,100000] [--queries 100]
 *
 * Same corpus and queries as `bench/speed.ts`. For each query: the exact top `pool` rows by
 * cosine (the recall's dense pool for limit 10), then, in the pre-selection's own order, how many
 * rows score at least as well as the worst of those (ties counted against it): the depth a scan
 * must select to be exact for that query. The int8 codes are the vector cache's (one scale for
 * every dimension, the query scaled to the int8 range); the binary codes are the sign of each
 * component. The int8 scan selects `preselected(pool + RESCORE_MARGIN)` rows.
 */
import { loadavg } from 'node:os';
import { candidatePoolSize } from '../src/recall/candidate-pool.js';
import { int8Query, preselected } from '../src/store/sqlite/slot-scan.js';
import { RESCORE_MARGIN } from '../src/store/sqlite/vector-partition.js';
import { parseArgs, parseIntList } from './lib/args.js';
import { exactTopK } from './lib/exact-scan.js';
import { DEFAULT_LOCOMO, loadLocomoCorpus } from './lib/locomo-corpus.js';
import { fmt, markdownTable, percentile } from './lib/stats.js';

const args = parseArgs(process.argv.slice(2), ['sizes', 'queries'], []);
const sizes = parseIntList(args.values.get('sizes') ?? '10000,100000', 'sizes');
const nQueries = Number(args.values.get('queries') ?? 100);

/** Rows of `scores` at least as high as the lowest score among `top` (the depth that holds them all). */
function depthFor(scores: ArrayLike<number>, top: readonly number[]): number {
  let worst = Number.POSITIVE_INFINITY;
  for (const row of top) worst = Math.min(worst, scores[row] as number);
  let depth = 0;
  for (let i = 0; i < scores.length; i++) if ((scores[i] as number) >= worst) depth++;
  return depth;
}

/** Number of set bits of a 32-bit word. */
function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function signBits(v: Float32Array, offset: number, dim: number, out: Uint32Array, at: number): void {
  for (let d = 0; d < dim; d++) if ((v[offset + d] as number) > 0) out[at + (d >> 5)]! |= 1 << (d & 31);
}

const rows: string[][] = [];
let queryCount = 0;
for (const size of sizes) {
  // The speed bench's corpus, and its queries in the same seeded order.
  const loaded = await loadLocomoCorpus(DEFAULT_LOCOMO, size);
  const { corpus } = loaded;
  const queries = loaded.queries.slice(0, nQueries).map((q) => q.vector);
  queryCount = queries.length;
  const { matrix, dim } = corpus;
  const pool = candidatePoolSize(10, size, true);
  let maxAbs = 0;
  for (let i = 0; i < matrix.length; i++) maxAbs = Math.max(maxAbs, Math.abs(matrix[i] as number));
  const scale = maxAbs > 0 ? 127 / maxAbs : 1;
  const q8 = Int8Array.from(matrix, (x) => Math.round(x * scale));
  const words = Math.ceil(dim / 32);
  const bits = new Uint32Array(size * words);
  for (let r = 0; r < size; r++) signBits(matrix, r * dim, dim, bits, r * words);
  const int8Depths: number[] = [];
  const binaryDepths: number[] = [];
  for (const query of queries) {
    const top = exactTopK(matrix, dim, query, pool).map((h) => h.index);
    const qq = int8Query(query);
    const int8Scores = new Float64Array(size);
    for (let r = 0; r < size; r++) {
      let s = 0;
      for (let d = 0, o = r * dim; d < dim; d++) s += (q8[o + d] as number) * (qq[d] as number);
      int8Scores[r] = s;
    }
    int8Depths.push(depthFor(int8Scores, top));
    const qb = new Uint32Array(words);
    signBits(query, 0, dim, qb, 0);
    // Fewer differing bits is better: score = −Hamming distance.
    const binaryScores = new Float64Array(size);
    for (let r = 0; r < size; r++) {
      let h = 0;
      for (let w = 0; w < words; w++) h += popcount(((bits[r * words + w] as number) ^ (qb[w] as number)) >>> 0);
      binaryScores[r] = -h;
    }
    binaryDepths.push(depthFor(binaryScores, top));
  }
  const selected = preselected(pool + RESCORE_MARGIN);
  const line = (name: string, depths: number[], bytes: number, scan: string): string[] => [
    String(size),
    name,
    String(bytes),
    fmt(percentile(depths, 50), 0),
    fmt(percentile(depths, 90), 0),
    String(Math.max(...depths)),
    `${fmt((100 * Math.max(...depths)) / size, 2)}%`,
    scan,
  ];
  rows.push(
    line(
      'int8 (the vector cache)',
      int8Depths,
      dim,
      `${selected} (${int8Depths.filter((d) => d <= selected).length}/${queries.length} exact)`,
    ),
  );
  rows.push(line('sign bits', binaryDepths, dim / 8, '—'));
}
console.log(
  `Pre-selection depth for the exact dense pool (${candidatePoolSize(10, 1e9, true)} rows, limit 10), ${queryCount} queries, load average ${loadavg()[0]?.toFixed(2)}\n`,
);
console.log(
  markdownTable(
    ['rows', 'codes', 'bytes per row', 'depth p50', 'depth p90', 'depth max', 'max ÷ rows', 'the scan selects'],
    rows,
  ),
);

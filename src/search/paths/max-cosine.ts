import { cosine } from '../../vector/cosine.js';

/** The best cosine of `vector` with any of the query vectors (0 when there are none). */
export function maxCosine(vector: Float32Array, queries: readonly Float32Array[]): number {
  let best = 0;
  let first = true;
  for (const q of queries) {
    const c = cosine(q, vector);
    if (first || c > best) best = c;
    first = false;
  }
  return best;
}

/**
 * {@link maxCosine} of each of `vectors`, bit for bit, several times faster: `cosine` sums
 * one component after another, so its speed is bound by the latency of each addition, not by
 * the arithmetic. Here four vectors are summed side by side (four independent chains, each in
 * `cosine`'s order, so each sum is the same double), and each query's squared norm is summed once.
 */
export function maxCosines(vectors: readonly Float32Array[], queries: readonly Float32Array[]): number[] {
  const out = new Array<number>(vectors.length).fill(0);
  const seen = new Array<boolean>(vectors.length).fill(false);
  for (const q of queries) {
    const na = squaredNorm(q);
    const keep = (j: number, dot: number, nb: number, v: Float32Array): void => {
      let c = 0;
      if (v.length === q.length && q.length > 0 && na !== 0 && nb !== 0) {
        const value = dot / (Math.sqrt(na) * Math.sqrt(nb));
        c = Number.isFinite(value) ? value : 0;
      }
      if (!seen[j] || c > (out[j] as number)) out[j] = c;
      seen[j] = true;
    };
    let j = 0;
    for (; j + 3 < vectors.length; j += 4) {
      const a = vectors[j] as Float32Array;
      const b = vectors[j + 1] as Float32Array;
      const c = vectors[j + 2] as Float32Array;
      const d = vectors[j + 3] as Float32Array;
      const n = q.length;
      if (a.length !== n || b.length !== n || c.length !== n || d.length !== n) {
        for (let k = j; k < j + 4; k++) keepOne(k);
        continue;
      }
      let da = 0, db = 0, dc = 0, dd = 0, na2 = 0, nb2 = 0, nc2 = 0, nd2 = 0;
      for (let i = 0; i < n; i++) {
        const x = q[i] as number;
        const ya = a[i] as number;
        const yb = b[i] as number;
        const yc = c[i] as number;
        const yd = d[i] as number;
        da += x * ya;
        na2 += ya * ya;
        db += x * yb;
        nb2 += yb * yb;
        dc += x * yc;
        nc2 += yc * yc;
        dd += x * yd;
        nd2 += yd * yd;
      }
      keep(j, da, na2, a);
      keep(j + 1, db, nb2, b);
      keep(j + 2, dc, nc2, c);
      keep(j + 3, dd, nd2, d);
    }
    for (; j < vectors.length; j++) keepOne(j);

    function keepOne(k: number): void {
      const v = vectors[k] as Float32Array;
      let dot = 0;
      let nb = 0;
      if (v.length === q.length) {
        for (let i = 0; i < v.length; i++) {
          const x = q[i] as number;
          const y = v[i] as number;
          dot += x * y;
          nb += y * y;
        }
      }
      keep(k, dot, nb, v);
    }
  }
  return out;
}

function squaredNorm(v: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += (v[i] as number) * (v[i] as number);
  return sum;
}

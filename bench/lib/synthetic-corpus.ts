/**
 * A synthetic but realistic corpus for the speed bench: real LoCoMo turns with their real
 * embeddings (base), repeated with variations up to any size. Copy v > 0 of base turn b gets
 * another speaker name and a small suffix in its text, and base b's vector plus Gaussian
 * noise (‖noise‖ ≈ `noise` · ‖v‖), re-normalised. Copies' texts are unique (a copy number is
 * appended on a clash), so a text identifies one vector. Deterministic for a given seed.
 */

/** Seeded PRNG (mulberry32) returning floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random unit vector of `dim` dimensions (components uniform in [-0.5, 0.5), then normalised). */
export function randomUnit(rand: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let s = 0;
  for (let i = 0; i < dim; i++) s += (v[i] = rand() - 0.5) ** 2;
  const norm = Math.sqrt(s);
  for (let i = 0; i < dim; i++) v[i] = (v[i] as number) / norm;
  return v;
}

/** Standard normal samples from a uniform source (Box–Muller). */
function gaussian(rand: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = Math.max(rand(), 1e-12);
    const v = rand();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** Scales `v` in place to unit length (no-op for a zero vector). */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += (v[i] as number) * (v[i] as number);
  const n = Math.sqrt(s);
  if (n > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / n;
  return v;
}

const NAMES = [
  'Alex',
  'Priya',
  'Jonas',
  'Mei',
  'Omar',
  'Sofia',
  'Kwame',
  'Lena',
  'Diego',
  'Hana',
  'Ivan',
  'Zoe',
  'Ravi',
  'Chloe',
  'Tariq',
  'Ana',
  'Felix',
  'Yuki',
  'Nora',
  'Sam',
  'Ines',
  'Malik',
  'Elsa',
  'Theo',
  'Aisha',
  'Bruno',
  'Keiko',
  'Luca',
  'Maya',
  'Olu',
  'Pia',
  'Quinn',
  'Rosa',
  'Sven',
  'Tara',
  'Umar',
  'Vera',
  'Wen',
  'Xavi',
  'Yara',
];
const SUFFIXES = [
  '',
  ' Anyway, that was last week.',
  ' More on that later!',
  ' Still thinking about it.',
  ' Crazy, right?',
  ' It was a long day.',
  ' Talk soon.',
  ' I told my sister too.',
  ' Can you believe it?',
  ' Just wanted to share.',
];

export interface BaseItem {
  /** Memory text, e.g. `Caroline: I went to a support group`. */
  text: string;
  /** Unit-length embedding of `text`. */
  vector: Float32Array;
}

export interface SyntheticCorpus {
  size: number;
  dim: number;
  texts: string[];
  /** Row-major `size × dim`, unit-length rows. */
  matrix: Float32Array;
  /** Row i as a view into {@link matrix}. */
  row(i: number): Float32Array;
  /** How many real (unperturbed) items it holds. */
  realItems: number;
}

/** Builds a corpus of `size` items from `base` (see the module comment). */
export function buildCorpus(
  base: readonly BaseItem[],
  size: number,
  options: { noise?: number; seed?: number } = {},
): SyntheticCorpus {
  if (base.length === 0) throw new Error('buildCorpus needs at least one base item');
  const dim = (base[0] as BaseItem).vector.length;
  const noise = options.noise ?? 0.6;
  const normal = gaussian(mulberry32(options.seed ?? 42));
  const sigma = noise / Math.sqrt(dim);
  const matrix = new Float32Array(size * dim);
  const texts: string[] = new Array<string>(size);
  const seen = new Set<string>();
  for (let i = 0; i < size; i++) {
    const b = base[i % base.length] as BaseItem;
    const copy = Math.floor(i / base.length);
    const row = matrix.subarray(i * dim, (i + 1) * dim);
    if (copy === 0) {
      row.set(b.vector);
      texts[i] = b.text;
      seen.add(b.text);
      continue;
    }
    for (let d = 0; d < dim; d++) row[d] = (b.vector[d] as number) + sigma * normal();
    normalize(row);
    const colon = b.text.indexOf(': ');
    const body = colon >= 0 ? b.text.slice(colon + 2) : b.text;
    let text = `${NAMES[(copy * 7 + i) % NAMES.length] as string}: ${body}${SUFFIXES[copy % SUFFIXES.length] as string}`;
    if (seen.has(text)) text = `${text} (${copy})`;
    seen.add(text);
    texts[i] = text;
  }
  return {
    size,
    dim,
    texts,
    matrix,
    row: (i) => matrix.subarray(i * dim, (i + 1) * dim),
    realItems: Math.min(size, base.length),
  };
}

import type { MemoryType } from '../../../src/model/memory-type.js';
import { MEMORY_TYPES } from '../../../src/model/memory-type.js';
import type { MemoryRecord } from '../../../src/store/memory-store.js';
import { unitVector } from '../../../src/vector/unit-cosine.js';

/** Seeded PRNG (mulberry32) returning floats in [0, 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Helpers over one random source. */
export function picker(rand: () => number) {
  const int = (n: number): number => Math.floor(rand() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const some = <T>(items: readonly T[], p: number): T[] => items.filter(() => rand() < p);
  return { int, pick, some, chance: (p: number): boolean => rand() < p };
}

const WORDS = [
  'passport',
  'drawer',
  'hotel',
  'train',
  'coffee',
  'deadline',
  'email',
  'report',
  'garden',
  'piano',
  'trip',
  'lisbon',
  'friday',
  'meeting',
  'window',
  'seat',
  'budget',
  'invoice',
  'doctor',
  'running',
  'books',
  'recipe',
  'tool',
  'schema',
  'skill',
  'prefers',
  'likes',
  'blue',
  'box',
  'stairs',
  'morning',
  'oat',
  'milk',
  'renewal',
];
export const TAGS = ['work', 'travel', 'home', 'health', 'food', 'music'];
export const KEYS = ['k1', 'k2', 'k3', 'k4'];
export const MODEL = 'rand-model';

/** Type shares of a corpus: every type, some rare, in a shuffled order. */
function typeWeights(rand: () => number): Array<[MemoryType, number]> {
  return MEMORY_TYPES.map((t) => [t, rand() < 0.15 ? 0 : rand() ** 2]);
}

/** A random text of the shared vocabulary (words repeat, so BM25 and ties matter). */
export function randomText(rand: () => number, min = 2, max = 9): string {
  const { int, pick } = picker(rand);
  return Array.from({ length: min + int(max - min + 1) }, () => pick(WORDS)).join(' ');
}

/** A vector near one of a few topic centres (so dense pools and lexical pools overlap only partly). */
export function randomVector(rand: () => number, dim: number, centres: readonly Float32Array[]): Float32Array {
  const { pick } = picker(rand);
  const centre = pick(centres);
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = (centre[i] as number) + (rand() - 0.5) * 1.2;
  return v;
}

/** Topic centres for {@link randomVector}. */
export function centres(rand: () => number, dim: number, n = 4): Float32Array[] {
  return Array.from({ length: n }, () => Float32Array.from({ length: dim }, () => rand() * 2 - 1));
}

/**
 * Random memories of one tenant over every type: two users, sessions, agents, collections, tags,
 * keys, archived rows, duplicated texts, rows without a vector and rows of another embedding model.
 */
export function randomRecords(
  rand: () => number,
  n: number,
  dim: number,
  topics: readonly Float32Array[],
): MemoryRecord[] {
  const { int, pick, some, chance } = picker(rand);
  const weights = typeWeights(rand);
  const total = weights.reduce((s, [, w]) => s + w, 0) || 1;
  const typeAt = (): MemoryType => {
    let x = rand() * total;
    for (const [t, w] of weights) if ((x -= w) < 0) return t;
    return 'LongTermMemory';
  };
  const texts: string[] = [];
  return Array.from({ length: n }, (_, i): MemoryRecord => {
    const text = texts.length > 0 && chance(0.08) ? pick(texts) : randomText(rand);
    texts.push(text);
    const at = new Date(Date.UTC(2026, 0, 1) + int(1e9)).toISOString();
    const vectorKind = rand();
    const raw = vectorKind < 0.06 ? null : randomVector(rand, dim, topics);
    // Every other row of unit length, as embedders give them: a store may then score the stored
    // vector where it keeps it (SQLite's `storedCosines`), the others it reads.
    const vector = raw !== null && i % 2 === 0 ? unitVector(raw) : raw;
    return {
      id: `m${String(i).padStart(4, '0')}`,
      text,
      type: typeAt(),
      key: chance(0.15) ? pick(KEYS) : null,
      tags: some(TAGS, 0.25),
      level: chance(0.5) ? pick(['topic', 'concept', 'fact'] as const) : null,
      summary: null,
      background: chance(0.2) ? randomText(rand) : null,
      sources: [],
      scope: {
        tenant: 't',
        user: chance(0.8) ? 'u1' : 'u2',
        ...(chance(0.4) ? { session: pick(['s1', 's2']) } : {}),
        ...(chance(0.3) ? { agent: pick(['a1', 'a2']) } : {}),
        ...(chance(0.5) ? { collection: pick(['ca', 'cb']) } : {}),
      },
      metadata: {},
      statedAt: null,
      createdAt: at,
      updatedAt: at,
      status: chance(0.1) ? 'archived' : 'activated',
      embedding: vector === null ? null : { model: vectorKind < 0.1 ? 'other-model' : MODEL, dim },
      vector,
    };
  });
}

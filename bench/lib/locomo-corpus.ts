/**
 * The real-embedding corpus of the PostgreSQL benches: LoCoMo turns with their USE-lite vectors
 * (from the bench's embedding cache) as base items, grown to any size with perturbed copies
 * (bench/lib/synthetic-corpus.ts), and the LoCoMo questions (categories 1–4) with their real
 * vectors as queries.
 */
import type { MemoryRecord } from '../../src/store/memory-store.js';
import { makeRecord } from '../../test/store/fixtures/records.js';
import { openBenchEmbedder } from './bench-embedder.js';
import { defaultLocomoData, readLocomoBench } from './locomo-questions.js';
import { buildCorpus, mulberry32, type SyntheticCorpus } from './synthetic-corpus.js';

/** LoCoMo dev split beside the main checkout (`--data` overrides it). */
export const DEFAULT_LOCOMO = defaultLocomoData();

export interface LocomoCorpus {
  model: string;
  corpus: SyntheticCorpus;
  /** Query texts and their unit vectors, in a seeded random order. */
  queries: Array<{ text: string; vector: Float32Array }>;
}

/** Embeds (or reads from the cache) the turns and questions of `data` and grows the corpus to `size`. */
export async function loadLocomoCorpus(data: string, size: number): Promise<LocomoCorpus> {
  const conversations = await readLocomoBench(data);
  const baseTexts = [...new Set(conversations.flatMap((c) => c.memories.map((m) => m.text)))];
  const questionTexts = [
    ...new Set(conversations.flatMap((c) => c.questions.filter((q) => q.category <= 4).map((q) => q.question))),
  ];
  const embedder = openBenchEmbedder();
  const baseVectors = await embedder.embed(baseTexts);
  const questionVectors = await embedder.embed(questionTexts);
  const model = embedder.model;
  await embedder.close?.();
  const base = baseTexts.map((text, i) => ({ text, vector: baseVectors[i] as Float32Array }));
  const rand = mulberry32(7);
  const order = questionTexts.map((_, i) => i).sort(() => rand() - 0.5);
  const queries = order.map((i) => ({ text: questionTexts[i] as string, vector: questionVectors[i] as Float32Array }));
  return { model, corpus: buildCorpus(base, size), queries };
}

/** Row `i` of the corpus as a store record in `scope` (id `m<i>`). */
export function corpusRecord(
  c: LocomoCorpus,
  i: number,
  scope: { tenant: string; user?: string | undefined },
): MemoryRecord {
  const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
  return makeRecord({
    id: `m${i}`,
    text: c.corpus.texts[i] as string,
    scope,
    statedAt: at,
    createdAt: at,
    updatedAt: at,
    embedding: { model: c.model, dim: c.corpus.dim },
    vector: c.corpus.row(i),
  });
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { create, insertMultiple, search } from '@orama/orama';

import { candidatePoolSize } from '../../src/recall/candidate-pool.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';
import { cosine } from '../../src/vector/cosine.js';
import { topK } from '../../src/vector/top-k.js';
import { referenceRank } from './reference-recall.js';
import { mulberry32, normalize, type SyntheticCorpus } from './synthetic-corpus.js';

/** A system under test for one corpus: search one query, return ids best first. */
export interface SpeedSystem {
  /** Seconds spent loading the corpus. */
  ingestSeconds: number;
  search(text: string, vector: Float32Array, k: number): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The reference project's design: every vector blob is read back from SQLite on each query,
 * cosine computed in JS, a pool of max(k·10, 50) kept, BM25 on the pool fused with the cosine
 * (the reference fusion), top k.
 */
export function openReferenceSqlite(corpus: SyntheticCorpus): SpeedSystem {
  const dir = mkdtempSync(join(tmpdir(), 'engram-speed-ref-'));
  const db = openSqliteDatabase(join(dir, 'ref.db'));
  db.pragma('journal_mode = WAL');
  db.exec(
    'CREATE TABLE memories (id TEXT PRIMARY KEY, user_id TEXT NOT NULL, text TEXT NOT NULL, embedding BLOB NOT NULL)',
  );
  db.exec('CREATE INDEX memories_user ON memories (user_id)');
  const start = performance.now();
  const insert = db.prepare('INSERT INTO memories (id, user_id, text, embedding) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (let i = 0; i < corpus.size; i++) {
      const v = corpus.row(i);
      insert.run(`m${i}`, 'u', corpus.texts[i], Buffer.from(v.buffer, v.byteOffset, v.byteLength));
    }
  })();
  const ingestSeconds = (performance.now() - start) / 1000;
  const select = db.prepare('SELECT id, text, embedding FROM memories WHERE user_id = ?');
  return {
    ingestSeconds,
    async search(text, vector, k) {
      const rows = select.all('u') as Array<{ id: string; text: string; embedding: Buffer }>;
      const scored = rows.map((row) => ({
        row,
        cosine: cosine(
          vector,
          new Float32Array(row.embedding.buffer, row.embedding.byteOffset, row.embedding.byteLength / 4),
        ),
      }));
      const pool = topK(scored, candidatePoolSize(k, rows.length, true), (a, b) => b.cosine - a.cosine);
      return referenceRank(
        text,
        pool.map((p) => ({ id: p.row.id, text: p.row.text, cosine: p.cosine })),
        k,
      ).map((r) => r.id);
    },
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Orama 3 hybrid search (full-text + vector in one `search` call), in memory. */
export async function openOrama(corpus: SyntheticCorpus): Promise<SpeedSystem> {
  const db = create({ schema: { id: 'string', text: 'string', embedding: `vector[${corpus.dim}]` } as const });
  const start = performance.now();
  const docs = Array.from({ length: corpus.size }, (_, i) => ({
    id: `m${i}`,
    text: corpus.texts[i] as string,
    embedding: Array.from(corpus.row(i)),
  }));
  await insertMultiple(db, docs, 1000);
  const ingestSeconds = (performance.now() - start) / 1000;
  return {
    ingestSeconds,
    async search(text, vector, k) {
      const result = await search(db, {
        mode: 'hybrid',
        term: text,
        vector: { value: Array.from(vector), property: 'embedding' },
        similarity: 0,
        limit: k,
        includeVectors: false,
      });
      return result.hits.map((h) => String(h.document.id));
    },
    async close() {},
  };
}

/**
 * A LangChain-shaped embeddings object (what mem0's `langchain` embedder provider accepts)
 * that returns precomputed vectors. Texts it was not given (mem0 embeds the entities it finds
 * in a query) get a deterministic pseudo-random unit vector, so no model runs inside the timing.
 */
export class LookupEmbeddings {
  unknownTexts = 0;
  constructor(
    private readonly vectors: ReadonlyMap<string, Float32Array>,
    private readonly dim: number,
  ) {}

  private vectorOf(text: string): number[] {
    const v = this.vectors.get(text);
    if (v !== undefined) return Array.from(v);
    this.unknownTexts += 1;
    let seed = 0;
    for (let i = 0; i < text.length; i++) seed = (Math.imul(seed, 31) + text.charCodeAt(i)) | 0;
    const rand = mulberry32(seed);
    return Array.from(normalize(Float32Array.from({ length: this.dim }, () => rand() - 0.5)));
  }

  async embedQuery(text: string): Promise<number[]> {
    return this.vectorOf(text);
  }

  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((t) => this.vectorOf(t));
  }
}

interface Mem0Like {
  add(messages: Array<{ role: string; content: string }>, config: { userId: string; infer: boolean }): Promise<unknown>;
  search(
    query: string,
    config: { filters: { user_id: string }; topK: number; threshold: number },
  ): Promise<{ results: Array<{ id: string; memory: string }> }>;
}

/**
 * mem0ai's `Memory` (OSS, TypeScript): `infer: false`, its SQLite-backed `memory` vector store,
 * history disabled, telemetry off, fed the same precomputed vectors through {@link LookupEmbeddings}.
 * Results map back to corpus ids through the memory text.
 */
export async function openMem0(
  corpus: SyntheticCorpus,
  queries: ReadonlyMap<string, Float32Array>,
): Promise<SpeedSystem & { embeddings: LookupEmbeddings }> {
  process.env['MEM0_TELEMETRY'] = 'false';
  const { Memory } = await import('mem0ai/oss');
  const dir = mkdtempSync(join(tmpdir(), 'engram-speed-mem0-'));
  const vectors = new Map<string, Float32Array>(queries);
  const idOf = new Map<string, string>();
  for (let i = 0; i < corpus.size; i++) {
    vectors.set(corpus.texts[i] as string, corpus.row(i));
    idOf.set(corpus.texts[i] as string, `m${i}`);
  }
  const embeddings = new LookupEmbeddings(vectors, corpus.dim);
  const memory = new Memory({
    embedder: { provider: 'langchain', config: { model: embeddings, embeddingDims: corpus.dim } },
    vectorStore: {
      provider: 'memory',
      config: { collectionName: 'bench', dimension: corpus.dim, dbPath: join(dir, 'vectors.db') },
    },
    llm: { provider: 'openai', config: { apiKey: 'unused-infer-is-off', model: 'unused' } },
    disableHistory: true,
    historyDbPath: join(dir, 'history.db'),
  }) as unknown as Mem0Like;
  const start = performance.now();
  for (let s = 0; s < corpus.size; s += 100) {
    const batch = corpus.texts.slice(s, s + 100).map((content) => ({ role: 'user', content }));
    await memory.add(batch, { userId: 'u', infer: false });
  }
  const ingestSeconds = (performance.now() - start) / 1000;
  return {
    ingestSeconds,
    embeddings,
    async search(text, _vector, k) {
      const result = await memory.search(text, { filters: { user_id: 'u' }, topK: k, threshold: 0 });
      return result.results.map((r) => idOf.get(r.memory) ?? r.id);
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

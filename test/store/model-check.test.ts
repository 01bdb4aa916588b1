/**
 * The facade's embedding-model check reads `stats().models` (most rows first). It must answer the
 * same on every backend: the same code, message and details for a scope that mixes models, for a
 * scope of another model than the embedder's, and no error for the right model. One scenario runs
 * on each backend (SQLite file and :memory:, a real PostgreSQL server, PGlite with pgvector) and
 * the outcomes are compared with each other and with what the check promises.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engram } from '../../src/engram.js';
import { isEngramError } from '../../src/model/errors.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { createTableEmbedder } from '../support/table-embedder.js';
import { randomVector, seededRandom, withVector } from './fixtures/records.js';

interface Backend {
  name: string;
  open(): Promise<MemoryStore>;
}

let cluster: PgCluster;
let pglite: PGlite;
let pglitePool: pg.Pool;
const dir = mkdtempSync(join(tmpdir(), 'engram-model-check-'));
let schemas = 0;

beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_model_check' });
  pglite = await PGlite.create('memory://', { extensions: { vector } });
  pglitePool = new pg.Pool(createPgConfig(pglite) as unknown as pg.PoolConfig);
  pglitePool.options.max = 1;
});
afterAll(async () => {
  await cluster?.stop();
  await pglitePool?.end();
  await pglite?.close();
  rmSync(dir, { recursive: true, force: true });
});

const BACKENDS: Backend[] = [
  { name: 'sqlite (file)', open: async () => createSqliteStore({ path: join(dir, `s${schemas++}.db`) }) },
  { name: 'sqlite (:memory:)', open: async () => createSqliteStore({ path: ':memory:' }) },
  {
    name: 'postgres (real server)',
    open: () => createPostgresStore({ connectionString: cluster.url, schema: `check_${schemas++}`, vector: 'app' }),
  },
  {
    name: 'postgres on PGlite (pgvector)',
    open: () => createPostgresStore({ pool: pglitePool, schema: `check_${schemas++}`, vector: 'pgvector' }),
  },
];

const DIM = 4;
const USER = { tenant: 't', user: 'u' };

/** Rows written straight to the store (the facade itself refuses to mix models in a scope). */
async function seed(store: MemoryStore, counts: Record<string, number>): Promise<void> {
  const random = seededRandom(5);
  const records = Object.entries(counts).flatMap(([model, n]) =>
    Array.from({ length: n }, (_, i) =>
      withVector(randomVector(random, DIM), model, { scope: USER, text: `${model} memory ${i}` }),
    ),
  );
  await store.insert(records);
}

/** What a recall in the scope answers: its hit count, or the error's code, message and details. */
async function recallOutcome(store: MemoryStore, model: string): Promise<unknown> {
  const engram = await Engram.open({
    store,
    embedder: createTableEmbedder({ dim: DIM, model }),
    env: {},
    ownResources: false,
  });
  try {
    const result = await engram.recall('memory', { scope: USER, threshold: -1 });
    return { hits: result.hits.length };
  } catch (error) {
    if (!isEngramError(error)) throw error;
    return { code: error.code, message: error.message, details: error.details };
  }
}

/** The three cases of the check on one backend. */
async function scenario(backend: Backend): Promise<Record<string, unknown>> {
  const mixed = await backend.open();
  const single = await backend.open();
  try {
    // Fewer rows of the model that sorts first by name: only the count decides the order.
    await seed(mixed, { 'model-a': 2, 'model-b': 3 });
    await seed(single, { 'model-a': 4 });
    return {
      mixed: await recallOutcome(mixed, 'model-b'),
      otherModel: await recallOutcome(single, 'model-b'),
      sameModel: await recallOutcome(single, 'model-a'),
    };
  } finally {
    await mixed.close();
    await single.close();
  }
}

describe('the facade model check on every backend', () => {
  it('answers the same on SQLite, PostgreSQL and PGlite', async () => {
    const outcomes: Record<string, Record<string, unknown>> = {};
    for (const backend of BACKENDS) outcomes[backend.name] = await scenario(backend);
    const reference = outcomes['sqlite (file)'] as Record<string, unknown>;
    expect(reference.mixed).toMatchObject({
      code: 'MODEL_MISMATCH',
      details: {
        models: [
          { model: 'model-b', dim: DIM, count: 3 },
          { model: 'model-a', dim: DIM, count: 2 },
        ],
      },
    });
    expect((reference.mixed as { message: string }).message).toContain('(model-b/4, model-a/4)');
    expect(reference.otherModel).toMatchObject({
      code: 'MODEL_MISMATCH',
      details: { stored: { model: 'model-a', dim: DIM }, embedder: { model: 'model-b', dim: DIM } },
    });
    expect(reference.sameModel).toEqual({ hits: 4 });
    for (const backend of BACKENDS) expect(outcomes[backend.name], backend.name).toEqual(reference);
  });
});

/**
 * The PostgreSQL store on a real server started by the test (test/support/pg-cluster.ts):
 * the shared conformance suite, plus PostgreSQL-specific checks (migrations, full-text syntax
 * safety, connection errors).
 */
import { afterAll, beforeAll } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { runStoreConformance } from './conformance.js';

let cluster: PgCluster;
beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_conformance' });
});
afterAll(async () => {
  await cluster?.stop();
});

runStoreConformance('postgres (real server, app-side vectors)', async () => {
  const store = await createPostgresStore({ connectionString: cluster.url, maxConnections: 4 });
  return { store, cleanup: () => store.close() };
});

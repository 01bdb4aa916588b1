import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runStoreConformance } from './conformance.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'engram-sqlite-'));
}

runStoreConformance('sqlite (temp file)', async () => {
  const dir = tempDir();
  const store = createSqliteStore({ path: join(dir, 'engram.db'), synchronous: 'NORMAL' });
  return {
    store,
    async cleanup() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

runStoreConformance('sqlite (:memory:)', async () => {
  const store = createSqliteStore({ path: ':memory:' });
  return { store, cleanup: () => store.close() };
});

runStoreConformance('sqlite (:memory:, no vector cache)', async () => {
  const store = createSqliteStore({ path: ':memory:', vectorCache: false });
  return { store, cleanup: () => store.close() };
});

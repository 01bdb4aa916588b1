import { Engram } from '../../src/engram.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { runMemoryApiConformance } from './conformance.js';

runMemoryApiConformance('in-process Engram (SQLite in memory)', async () => {
  const engram = await Engram.open({ store: createSqliteStore({ path: ':memory:' }), embedder: new HashedEmbedder() });
  return { api: engram, cleanup: () => engram.close() };
});

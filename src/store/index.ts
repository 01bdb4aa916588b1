export type {
  DenseCandidate,
  DenseQuery,
  LexicalCandidate,
  LexicalQuery,
  MemoryContext,
  MemoryRecord,
  MemoryStore,
  MemoryText,
  NewestId,
  NewestIdsOptions,
  TextOptions,
  UsageEntry,
} from './memory-store.js';
export { CONTEXT_ANALYZER, type DocumentAnalyzer } from '../text/document-analyzer.js';
export type { TermDocument } from '../text/term-document.js';
export { TermDictionary } from '../text/term-dictionary.js';
export type { ListOptions, MemoryFilter, Page, ScopeStats } from '../model/memory-filter.js';
export {
  createSqliteStore,
  SqliteStore,
  type SqliteStoreOptions,
  type VectorPartitionKey,
  applySqliteMigrations,
  SQLITE_MIGRATIONS,
  type SqliteMigration,
} from './sqlite/index.js';
export { encodeVector, decodeVector } from './vector-codec.js';
export { isStorableText, assertStorableText } from './text-check.js';
export { assertRecord, assertFilter, assertScope, assertVector, assertLimit } from './record-validation.js';
export {
  encodeListCursor,
  decodeListCursor,
  type ListCursor,
  type ListOrder,
  type ListDirection,
} from './list-cursor.js';

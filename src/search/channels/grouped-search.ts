import type {
  DenseCandidate,
  DenseGroupQuery,
  LexicalCandidate,
  LexicalGroupQuery,
  MemoryStore,
} from '../../store/memory-store.js';

/**
 * Several dense searches of one scope and vector in one store call when the store answers
 * groups ({@link MemoryStore.denseSearchGroups}); otherwise one `denseSearch` per group, issued
 * together so a remote store overlaps them.
 */
export function denseSearchGroups(store: MemoryStore, query: DenseGroupQuery): Promise<DenseCandidate[][]> {
  if (query.groups.length === 0) return Promise.resolve([]);
  if (store.denseSearchGroups) return store.denseSearchGroups(query);
  const { groups, filter, ...rest } = query;
  return Promise.all(
    groups.map((g) => store.denseSearch({ ...rest, filter: { ...filter, types: g.types }, limit: g.limit })),
  );
}

/** {@link denseSearchGroups} for the lexical index ({@link MemoryStore.lexicalSearchGroups}). */
export function lexicalSearchGroups(store: MemoryStore, query: LexicalGroupQuery): Promise<LexicalCandidate[][]> {
  if (query.groups.length === 0) return Promise.resolve([]);
  if (store.lexicalSearchGroups) return store.lexicalSearchGroups(query);
  const { groups, filter, ...rest } = query;
  return Promise.all(
    groups.map((g) => store.lexicalSearch({ ...rest, filter: { ...filter, types: g.types }, limit: g.limit })),
  );
}

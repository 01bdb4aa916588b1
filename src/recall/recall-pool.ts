import type { MemoryFilter } from '../model/memory-filter.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { ChannelRows } from './recall-channels.js';
import { newCandidate, type RecallCandidate } from './recall-candidate.js';
import type { Memory } from '../model/memory.js';
import type { PoolDocument } from './pool-document.js';
import { readPoolDocuments } from './read-pool-documents.js';
import type { RecallProfileSpec } from './recall-profile.js';
import type { TokenCache } from './token-cache.js';

/** The candidate pool: each candidate once, with the channels that found it. */
export function mergeChannels(channels: ChannelRows): {
  byId: Map<string, RecallCandidate>;
  lexicalOnly: string[];
} {
  const byId = new Map<string, RecallCandidate>();
  channels.dense.rows.forEach((row, i) =>
    byId.set(row.id, newCandidate(row.id, row.cosine, row.updatedAt, i + 1, undefined)),
  );
  const lexicalOnly: string[] = [];
  channels.lexical.rows.forEach((row, i) => {
    const seen = byId.get(row.id);
    if (seen) seen.lexicalRank = i + 1;
    else {
      byId.set(row.id, newCandidate(row.id, 0, undefined, undefined, i + 1));
      lexicalOnly.push(row.id);
    }
  });
  return { byId, lexicalOnly };
}

/**
 * Cosines of the candidates only the lexical channel found. The store scores them with the same
 * arithmetic as the dense channel (and from its vector cache).
 */
export async function scoreLexicalOnly(
  store: MemoryStore,
  query: { filter: MemoryFilter; queryVector: Float32Array; model: string },
  byId: ReadonlyMap<string, RecallCandidate>,
  lexicalOnly: string[],
): Promise<void> {
  if (lexicalOnly.length === 0) return;
  const scored = await store.denseSearch({
    filter: { ...query.filter, ids: lexicalOnly },
    vector: query.queryVector,
    model: query.model,
    limit: lexicalOnly.length,
  });
  for (const row of scored) {
    const entry = byId.get(row.id);
    if (entry) {
      entry.cosine = row.cosine;
      entry.updatedAt = row.updatedAt;
    }
  }
}

/**
 * The pool document of every candidate (see {@link readPoolDocuments}: from the cache by id and
 * last update when the store reported it, else read and remembered). A candidate that could not
 * be read (deleted meanwhile) has no entry; a read one learns its last update.
 */
export async function candidateDocuments(
  deps: { store: MemoryStore; tokenCache?: TokenCache | undefined },
  profile: Pick<RecallProfileSpec, 'name' | 'tokenize' | 'fusion'>,
  tenant: string,
  byId: ReadonlyMap<string, RecallCandidate>,
  /** Whole rows read on the way, by id (the hits need no second read). */
  rowsRead?: Map<string, Memory>,
): Promise<Map<string, PoolDocument>> {
  const candidates = [...byId.values()];
  const cache = deps.tokenCache?.view<PoolDocument>(profile.name, tenant);
  const updates = new Map<string, string>();
  const found = await readPoolDocuments(deps.store, tenant, candidates, profile, cache, rowsRead, updates);
  const documents = new Map<string, PoolDocument>();
  candidates.forEach((c, i) => {
    const document = found[i];
    if (document === undefined) return;
    documents.set(c.id, document);
    c.updatedAt = updates.get(c.id) ?? c.updatedAt;
  });
  return documents;
}

import type { MemoryFilter } from '../model/memory-filter.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { ChannelRows } from './recall-channels.js';
import { newCandidate, type RecallCandidate } from './recall-candidate.js';
import type { Memory } from '../model/memory.js';
import type { PoolDocument } from '../text/pool-document.js';
import type { RankDocument } from '../text/term-document.js';
import { readPoolDocuments } from './read-pool-documents.js';
import type { RecallProfileSpec } from './recall-profile.js';
import type { TokenCache } from './token-cache.js';

/**
 * The candidate pool: each candidate once, with the channels that found it. `lexicalOnly` lists
 * the candidates still without a cosine (the lexical channel did not score them); `rows` holds
 * the whole rows the channels returned with their candidates.
 */
export function mergeChannels(channels: ChannelRows): {
  byId: Map<string, RecallCandidate>;
  lexicalOnly: string[];
  rows: Map<string, Memory>;
} {
  const byId = new Map<string, RecallCandidate>();
  const rows = new Map<string, Memory>();
  channels.dense.rows.forEach((row, i) => {
    byId.set(row.id, newCandidate(row.id, row.cosine, row.updatedAt, i + 1, undefined, row.document));
    if (row.memory) rows.set(row.id, row.memory);
  });
  const lexicalOnly: string[] = [];
  channels.lexical.rows.forEach((row, i) => {
    const seen = byId.get(row.id);
    if (seen) {
      seen.lexicalRank = i + 1;
      seen.document ??= row.document;
    } else {
      byId.set(row.id, newCandidate(row.id, row.cosine ?? 0, row.updatedAt, undefined, i + 1, row.document));
      if (row.cosine === undefined) lexicalOnly.push(row.id);
    }
    if (row.memory && !rows.has(row.id)) rows.set(row.id, row.memory);
  });
  return { byId, lexicalOnly, rows };
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
 * last update when the store reported it, else made from the row a channel brought (`rowsRead`),
 * else read and remembered). A candidate that could not be read (deleted meanwhile) has no entry;
 * a read one learns its last update.
 */
export async function candidateDocuments(
  deps: { store: MemoryStore; tokenCache?: TokenCache | undefined },
  profile: Pick<RecallProfileSpec, 'name' | 'tokenize' | 'fusion' | 'analyzer'>,
  tenant: string,
  byId: ReadonlyMap<string, RecallCandidate>,
  /** Whole rows already at hand, by id; the rows read here are added (the hits need no second read). */
  rowsRead?: Map<string, Memory>,
): Promise<Map<string, RankDocument>> {
  const candidates = [...byId.values()];
  const cache = deps.tokenCache?.view<PoolDocument>(profile.name, tenant);
  const updates = new Map<string, string>();
  const sources = candidates.map((c) => ({
    id: c.id,
    updatedAt: c.updatedAt,
    memory: rowsRead?.get(c.id),
    document: c.document,
  }));
  const found = await readPoolDocuments(deps.store, tenant, sources, profile, cache, rowsRead, updates);
  const documents = new Map<string, RankDocument>();
  candidates.forEach((c, i) => {
    const document = found[i];
    if (document === undefined) return;
    documents.set(c.id, document);
    c.updatedAt = rowsRead?.get(c.id)?.updatedAt ?? updates.get(c.id) ?? c.updatedAt;
  });
  return documents;
}

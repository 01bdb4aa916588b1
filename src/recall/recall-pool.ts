import type { MemoryFilter } from '../model/memory-filter.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { ChannelRows } from './recall-channels.js';
import { newCandidate, type RecallCandidate } from './recall-candidate.js';
import type { Memory } from '../model/memory.js';
import { contextDocument, poolDocumentOf, textDocument, type PoolDocument } from './pool-document.js';
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
    byId.set(row.id, newCandidate(row.id, row.cosine, row.updatedAt, i + 1, undefined));
    if (row.memory) rows.set(row.id, row.memory);
  });
  const lexicalOnly: string[] = [];
  channels.lexical.rows.forEach((row, i) => {
    const seen = byId.get(row.id);
    if (seen) seen.lexicalRank = i + 1;
    else {
      byId.set(row.id, newCandidate(row.id, row.cosine ?? 0, row.updatedAt, undefined, i + 1));
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
 * The pool document of every candidate (its tokens, and for a profile that reads context its
 * context and speakers). Documents the cache knows (by id and last update, when the store reports
 * it) are reused; the rest are made from the rows in `rowsRead` (returned by the channels) or
 * read — texts (with their contexts for the spread fusion) when the store offers them, whole rows
 * otherwise or where the store gave no context — and remembered. A candidate that could not be
 * read (deleted meanwhile) has no entry.
 */
export async function candidateDocuments(
  deps: { store: MemoryStore; tokenCache?: TokenCache | undefined },
  profile: Pick<RecallProfileSpec, 'name' | 'tokenize' | 'fusion'>,
  tenant: string,
  byId: ReadonlyMap<string, RecallCandidate>,
  /** Whole rows already at hand, by id; the rows read here are added (the hits need no second read). */
  rowsRead?: Map<string, Memory>,
): Promise<Map<string, PoolDocument>> {
  const { store } = deps;
  const cache = deps.tokenCache?.view<PoolDocument>(profile.name, tenant);
  const documents = new Map<string, PoolDocument>();
  let unknown: string[] = [];
  for (const c of byId.values()) {
    const cached = c.updatedAt === undefined ? undefined : cache?.peek(c.id, c.updatedAt);
    if (cached) documents.set(c.id, cached);
    else unknown.push(c.id);
  }
  if (unknown.length === 0) return documents;
  const remember = (id: string, updatedAt: string, make: () => PoolDocument): void => {
    const entry = byId.get(id);
    if (!entry) return;
    entry.updatedAt = updatedAt;
    documents.set(id, cache ? cache.get(id, updatedAt, make) : make());
  };
  const fromRow = (m: Memory): void => remember(m.id, m.updatedAt, () => poolDocumentOf(m, profile));
  if (rowsRead !== undefined && rowsRead.size > 0) {
    for (const id of unknown) {
      const row = rowsRead.get(id);
      if (row) fromRow(row);
    }
    unknown = unknown.filter((id) => !rowsRead.has(id));
    if (unknown.length === 0) return documents;
  }
  const spread = profile.fusion === 'spread';
  if (store.getTexts) {
    const withoutContext = new Set<string>();
    for (const t of await store.getTexts(tenant, unknown, spread ? { context: true } : undefined)) {
      const { context } = t;
      if (!spread) remember(t.id, t.updatedAt, () => textDocument(profile.tokenize(t.text)));
      else if (context) remember(t.id, t.updatedAt, () => contextDocument(t.text, context, profile.tokenize));
      else withoutContext.add(t.id);
    }
    unknown = unknown.filter((id) => withoutContext.has(id));
  }
  if (unknown.length === 0) return documents;
  for (const m of await store.get(tenant, unknown)) {
    rowsRead?.set(m.id, m);
    fromRow(m);
  }
  return documents;
}

import type { MemoryFilter } from '../model/memory-filter.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { ChannelRows } from './recall-channels.js';
import { newCandidate, type RecallCandidate } from './recall-candidate.js';
import type { TokenCache } from './token-cache.js';
import type { Tokenizer } from '../text/tokenizer.js';

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
 * Tokens of every candidate. Those the token cache knows (by id and last update, when the store
 * reports it) are reused; texts are read for the rest only. A candidate whose text could not be
 * read (deleted meanwhile) has no entry.
 */
export async function candidateTokens(
  deps: { store: MemoryStore; tokenCache?: TokenCache | undefined },
  tokenizer: { name: string; tokenize: Tokenizer },
  tenant: string,
  byId: ReadonlyMap<string, RecallCandidate>,
): Promise<Map<string, readonly string[]>> {
  const { store } = deps;
  const cache = deps.tokenCache?.view(tokenizer.name, tenant);
  const tokensOf = new Map<string, readonly string[]>();
  const unknown: string[] = [];
  for (const c of byId.values()) {
    const cached = c.updatedAt === undefined ? undefined : cache?.peek(c.id, c.updatedAt);
    if (cached) tokensOf.set(c.id, cached);
    else unknown.push(c.id);
  }
  if (unknown.length === 0) return tokensOf;
  const texts = store.getTexts
    ? await store.getTexts(tenant, unknown)
    : (await store.get(tenant, unknown)).map((m) => ({ id: m.id, text: m.text, updatedAt: m.updatedAt }));
  for (const t of texts) {
    const entry = byId.get(t.id);
    if (!entry) continue;
    entry.updatedAt = t.updatedAt;
    tokensOf.set(
      t.id,
      cache ? cache.tokens(tokenizer.tokenize, t.id, t.updatedAt, t.text) : tokenizer.tokenize(t.text),
    );
  }
  return tokensOf;
}

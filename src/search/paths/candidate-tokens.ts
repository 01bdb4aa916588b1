import type { Memory } from '../../model/memory.js';
import type { TokenCacheView } from '../../recall/token-cache.js';
import type { MemoryStore, MemoryText } from '../../store/memory-store.js';
import type { Tokenizer } from '../../text/tokenizer.js';

/** What is known of a candidate before its text is read. */
export interface TokenSource {
  id: string;
  /** Its last update, when a channel or the store reported it. */
  updatedAt?: string | undefined;
  /** The whole memory, when a channel brought it. */
  memory?: Memory | undefined;
}

/**
 * The tokens pool BM25 reads for each candidate: from the token cache when it knows this version
 * of the memory, else tokenised from the text — the memory's own, or read for every remaining
 * candidate in one store call (`getTexts`, else `get`). Candidates whose text is gone are absent.
 */
export async function candidateTokens(
  store: MemoryStore,
  tenant: string,
  sources: Iterable<TokenSource>,
  tokenize: Tokenizer,
  cache: TokenCacheView | undefined,
): Promise<Map<string, readonly string[]>> {
  const out = new Map<string, readonly string[]>();
  const of = (t: MemoryText): readonly string[] =>
    cache ? cache.tokens(tokenize, t.id, t.updatedAt, t.text) : tokenize(t.text);
  const unread = new Set<string>();
  for (const s of sources) {
    if (out.has(s.id)) continue;
    if (s.memory) {
      out.set(s.id, of(s.memory));
      continue;
    }
    const cached = s.updatedAt === undefined ? undefined : cache?.peek(s.id, s.updatedAt);
    if (cached) out.set(s.id, cached);
    else unread.add(s.id);
  }
  const missing = [...unread].filter((id) => !out.has(id));
  if (missing.length === 0) return out;
  const texts = store.getTexts
    ? await store.getTexts(tenant, missing)
    : (await store.get(tenant, missing)).map((m) => ({ id: m.id, text: m.text, updatedAt: m.updatedAt }));
  for (const t of texts) out.set(t.id, of(t));
  return out;
}

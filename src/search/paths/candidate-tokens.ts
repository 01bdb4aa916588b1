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
 * The tokens pool BM25 reads for each candidate (in the order given): from the token cache when
 * it knows this version of the memory, else tokenised from the text — the memory's own, or read
 * for every remaining candidate in one store call (`getTexts`, else `get`). Undefined where the
 * text is gone. `updatedAtOf` supplies the last update of sources that carry none.
 */
export async function candidateTokens(
  store: MemoryStore,
  tenant: string,
  sources: readonly TokenSource[],
  tokenize: Tokenizer,
  cache: TokenCacheView | undefined,
  updatedAtOf: (id: string) => string | undefined = () => undefined,
): Promise<Array<readonly string[] | undefined>> {
  const of = (t: MemoryText): readonly string[] =>
    cache ? cache.tokens(tokenize, t.id, t.updatedAt, t.text) : tokenize(t.text);
  const out = new Array<readonly string[] | undefined>(sources.length);
  const unread: number[] = [];
  sources.forEach((s, i) => {
    if (s.memory) {
      out[i] = of(s.memory);
      return;
    }
    const updatedAt = s.updatedAt ?? updatedAtOf(s.id);
    const cached = updatedAt === undefined ? undefined : cache?.peek(s.id, updatedAt);
    if (cached) out[i] = cached;
    else unread.push(i);
  });
  if (unread.length === 0) return out;
  const ids = [...new Set(unread.map((i) => (sources[i] as TokenSource).id))];
  const texts = store.getTexts
    ? await store.getTexts(tenant, ids)
    : (await store.get(tenant, ids)).map((m) => ({ id: m.id, text: m.text, updatedAt: m.updatedAt }));
  const read = new Map(texts.map((t) => [t.id, of(t)]));
  for (const i of unread) out[i] = read.get((sources[i] as TokenSource).id);
  return out;
}

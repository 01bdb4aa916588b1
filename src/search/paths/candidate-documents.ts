import type { Memory } from '../../model/memory.js';
import { poolDocumentOf, textDocument, type PoolDocument } from '../../recall/pool-document.js';
import type { RecallProfileSpec } from '../../recall/recall-profile.js';
import type { TokenCacheView } from '../../recall/token-cache.js';
import type { MemoryStore, MemoryText } from '../../store/memory-store.js';

/** What is known of a candidate before its row is read. */
export interface DocumentSource {
  id: string;
  /** Its last update, when a channel or the store reported it. */
  updatedAt?: string | undefined;
  /** The whole memory, when a channel brought it. */
  memory?: Memory | undefined;
}

/**
 * The pool document the fusion reads for each candidate (in the order given) — the core recall's
 * (`poolDocumentOf`: tokens, and for the spread fusion context and speakers): from the cache when
 * it knows this version of the memory, else made from the memory a channel brought, or read for
 * every remaining candidate in one store call (texts only when the profile needs nothing else,
 * whole rows otherwise; those rows are added to `rowsRead`). Undefined where the memory is gone.
 * `updatedAtOf` supplies the last update of sources that carry none.
 */
export async function candidateDocuments(
  store: MemoryStore,
  tenant: string,
  sources: readonly DocumentSource[],
  profile: Pick<RecallProfileSpec, 'tokenize' | 'fusion'>,
  cache: TokenCacheView<PoolDocument> | undefined,
  updatedAtOf: (id: string) => string | undefined = () => undefined,
  rowsRead?: Map<string, Memory>,
): Promise<Array<PoolDocument | undefined>> {
  const remember = (id: string, updatedAt: string, make: () => PoolDocument): PoolDocument =>
    cache ? cache.get(id, updatedAt, make) : make();
  const out = new Array<PoolDocument | undefined>(sources.length);
  const unread: number[] = [];
  sources.forEach((s, i) => {
    const { memory } = s;
    if (memory) {
      out[i] = remember(memory.id, memory.updatedAt, () => poolDocumentOf(memory, profile));
      return;
    }
    const updatedAt = s.updatedAt ?? updatedAtOf(s.id);
    const cached = updatedAt === undefined ? undefined : cache?.peek(s.id, updatedAt);
    if (cached) out[i] = cached;
    else unread.push(i);
  });
  if (unread.length === 0) return out;
  const ids = [...new Set(unread.map((i) => (sources[i] as DocumentSource).id))];
  const read = new Map<string, PoolDocument>();
  if (profile.fusion === 'spread' || !store.getTexts) {
    for (const m of await store.get(tenant, ids)) {
      rowsRead?.set(m.id, m);
      read.set(
        m.id,
        remember(m.id, m.updatedAt, () => poolDocumentOf(m, profile)),
      );
    }
  } else {
    const texts: MemoryText[] = await store.getTexts(tenant, ids);
    for (const t of texts)
      read.set(
        t.id,
        remember(t.id, t.updatedAt, () => textDocument(profile.tokenize(t.text))),
      );
  }
  for (const i of unread) out[i] = read.get((sources[i] as DocumentSource).id);
  return out;
}

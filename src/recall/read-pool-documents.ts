import type { Memory } from '../model/memory.js';
import type { MemoryStore } from '../store/memory-store.js';
import { contextDocument, poolDocumentOf, textDocument, type PoolDocument } from '../text/pool-document.js';
import type { RankDocument } from '../text/term-document.js';
import type { RecallProfileSpec } from './recall-profile.js';
import type { TokenCacheView } from './token-cache.js';

/** What is known of a candidate before its row is read. */
export interface DocumentSource {
  id: string;
  /** Its last update, when a channel or the store reported it. */
  updatedAt?: string | undefined;
  /** The whole memory, when a channel brought it. */
  memory?: Memory | undefined;
  /** The store's document of this version, as the profile's analyzer makes it, when a channel brought it. */
  document?: RankDocument | undefined;
}

/**
 * The pool document the fusion reads for each candidate, in the order given (`poolDocumentOf`:
 * tokens, and for the spread fusion context and speakers), shared by the core recall and the
 * searcher's stages: the store's own document when a channel brought it; else from the cache when
 * it knows this version of the memory (by id and last update), or made from the memory a channel
 * brought; else read for every remaining candidate in one store call — texts (with their contexts
 * for the spread fusion) when the store offers them, and the documents themselves where the store
 * keeps the profile's analyzer's, whole rows otherwise or where the store gave no context (those
 * rows are added to `rowsRead`, and every read memory's last update to `readUpdates`). Undefined
 * where the memory is gone.
 */
export async function readPoolDocuments(
  store: MemoryStore,
  tenant: string,
  sources: readonly DocumentSource[],
  profile: Pick<RecallProfileSpec, 'tokenize' | 'fusion' | 'analyzer'>,
  cache: TokenCacheView<PoolDocument> | undefined,
  rowsRead?: Map<string, Memory>,
  readUpdates?: Map<string, string>,
): Promise<Array<RankDocument | undefined>> {
  const remember = (id: string, updatedAt: string, make: () => PoolDocument): PoolDocument =>
    cache ? cache.get(id, updatedAt, make) : make();
  const out = new Array<RankDocument | undefined>(sources.length);
  const unread: number[] = [];
  sources.forEach((s, i) => {
    const { memory, updatedAt } = s;
    if (s.document) {
      out[i] = s.document;
      return;
    }
    if (memory) {
      out[i] = remember(memory.id, memory.updatedAt, () => poolDocumentOf(memory, profile));
      return;
    }
    const cached = updatedAt === undefined ? undefined : cache?.peek(s.id, updatedAt);
    if (cached) out[i] = cached;
    else unread.push(i);
  });
  if (unread.length === 0) return out;
  const ids = [...new Set(unread.map((i) => (sources[i] as DocumentSource).id))];
  const read = new Map<string, RankDocument>();
  const spread = profile.fusion === 'spread';
  let rows = ids;
  if (store.getTexts) {
    // The spread fusion's context comes with the texts where the store keeps it; rows where not.
    const withoutContext = new Set<string>();
    const analyzer = profile.analyzer?.name;
    for (const t of await store.getTexts(tenant, ids, { context: spread, analyzer })) {
      const { context } = t;
      if (t.document !== undefined && analyzer !== undefined) {
        // The store's own document of this version, as term ids: nothing to tokenise or to remember.
        readUpdates?.set(t.id, t.updatedAt);
        read.set(t.id, t.document);
        continue;
      }
      if (spread && !context) {
        withoutContext.add(t.id);
        continue;
      }
      readUpdates?.set(t.id, t.updatedAt);
      const make = (): PoolDocument =>
        context ? contextDocument(t.text, context, profile.tokenize) : textDocument(profile.tokenize(t.text));
      read.set(t.id, remember(t.id, t.updatedAt, make));
    }
    rows = ids.filter((id) => withoutContext.has(id));
  }
  if (rows.length > 0) {
    for (const m of await store.get(tenant, rows)) {
      rowsRead?.set(m.id, m);
      readUpdates?.set(m.id, m.updatedAt);
      read.set(
        m.id,
        remember(m.id, m.updatedAt, () => poolDocumentOf(m, profile)),
      );
    }
  }
  for (const i of unread) out[i] = read.get((sources[i] as DocumentSource).id);
  return out;
}

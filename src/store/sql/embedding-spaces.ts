import type { EmbeddingInfo } from '../../model/memory.js';

/** The distinct embedding spaces (model, dimension) among `embeddings`, in first-seen order. */
export function distinctSpaces(embeddings: Iterable<EmbeddingInfo | null | undefined>): EmbeddingInfo[] {
  const out = new Map<string, EmbeddingInfo>();
  for (const e of embeddings) if (e) out.set(`${e.model}\u0000${e.dim}`, e);
  return [...out.values()];
}

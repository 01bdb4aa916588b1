import type { Channel, Hit } from '../model/hit.js';
import type { Memory } from '../model/memory.js';
import type { MemoryStore } from '../store/memory-store.js';
import type { RecallCandidate } from './recall-candidate.js';

/**
 * The ranked candidates as hits, each with the explanation of its score, split by the threshold
 * on the fused score (`hits` pass it, `cut` do not; both best first). A memory deleted between
 * ranking and fetching is left out rather than shown stale.
 */
export async function explainHits(
  store: MemoryStore,
  tenant: string,
  ranking: { ranked: readonly RecallCandidate[]; denseWeight: number; lexicalWeight: number; speakerWeight: number },
  threshold: number,
  /** Rows already read while ranking; only the others are fetched. */
  known: ReadonlyMap<string, Memory> = new Map(),
): Promise<{ hits: Hit[]; cut: Hit[] }> {
  const { denseWeight, lexicalWeight, speakerWeight } = ranking;
  const missing = ranking.ranked.filter((c) => !known.has(c.id)).map((c) => c.id);
  const fetched = missing.length > 0 ? await store.get(tenant, missing) : [];
  const memoryById = new Map([...known, ...fetched.map((m) => [m.id, m] as const)]);
  const hits: Hit[] = [];
  const cut: Hit[] = [];
  for (const c of ranking.ranked) {
    const memory = memoryById.get(c.id);
    if (!memory) continue;
    const channels: Channel[] = [];
    if (c.denseRank !== undefined) channels.push('dense');
    if (c.lexicalRank !== undefined) channels.push('lexical');
    const hit: Hit = {
      memory,
      score: c.fused,
      explanation: {
        channels,
        cosine: c.cosine,
        bm25: c.bm25,
        bm25Raw: c.bm25Raw,
        denseWeight,
        lexicalWeight,
        fused: c.fused,
        denseRank: c.denseRank,
        lexicalRank: c.lexicalRank,
        // The spread fusion's third signal: whether the query names who said the memory.
        ...(speakerWeight > 0 ? { extra: { speaker: c.speaker, speakerWeight } } : {}),
      },
    };
    (c.fused >= threshold ? hits : cut).push(hit);
  }
  return { hits, cut };
}

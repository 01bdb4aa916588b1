import type { LexicalCandidate } from '../../store/memory-store.js';
import type { ChannelHit } from './search-channel.js';

/** Index scores divided by the best one, so lexical channel scores are in [0, 1]. */
export function normalizeLexical(rows: LexicalCandidate[]): ChannelHit[] {
  const max = rows.reduce((m, r) => Math.max(m, r.score), 0);
  return rows.map((r) => ({
    id: r.id,
    score: max > 0 ? r.score / max : 0,
    updatedAt: r.updatedAt,
    type: r.type,
    document: r.document,
    storedCosine: r.storedCosine,
  }));
}

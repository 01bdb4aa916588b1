import type { Memory } from '../model/memory.js';

/**
 * A self-supervised calibration pair: a text the store already holds, used as a query, and the
 * memory that belongs with it. No label from anyone: the pairing comes from how the memories
 * were written.
 */
export interface CalibrationPair {
  /** The pseudo-query. */
  query: string;
  /** The memory it should find. */
  targetId: string;
  /** Text of a memory to leave out of the pool (the query's own memory, which would match itself). */
  exclude: string;
}

/** A leading speaker label (`"Caroline: "`), which a real question does not start with. */
const SPEAKER_LABEL = /^[^:\n]{1,40}:\s+/;

/**
 * Pairs from conversations: a turn's `background` (the turn it answers) as the query, the turn
 * as the target — "what answers this?" over the store's own data, the closest offline stand-in
 * for a question about a reply. Memories without a background give no pair. At most `max` pairs,
 * spread evenly over the memories in the order they were written (by `createdAt`, then key and
 * text, never by id: ids are often random, and the sample must not change from run to run).
 */
export function backgroundPairs(memories: readonly Memory[], max: number): CalibrationPair[] {
  const all: CalibrationPair[] = [];
  const order = (m: Memory): string[] => [m.createdAt ?? '', m.key ?? '', m.text];
  const sorted = [...memories].sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return (x[i] as string) < (y[i] as string) ? -1 : 1;
    return 0;
  });
  for (const m of sorted) {
    const background = m.background?.trim() ?? '';
    const query = background.replace(SPEAKER_LABEL, '').trim();
    if (query.length < 3 || background === m.text) continue;
    all.push({ query, targetId: m.id, exclude: background });
  }
  if (all.length <= max) return all;
  const step = all.length / max;
  return Array.from({ length: max }, (_, i) => all[Math.floor(i * step)] as CalibrationPair);
}

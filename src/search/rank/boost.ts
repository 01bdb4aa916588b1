import type { BoostContext } from '../../model/boost-context.js';
import type { Memory } from '../../model/memory.js';

/** Boost weights. @default {userId: 0.5, tags: 0.2, sessionId: 0.3} (the multi-path searcher's weights) */
export interface BoostWeights {
  userId: number;
  tags: number;
  sessionId: number;
}

export const DEFAULT_BOOST_WEIGHTS: BoostWeights = { userId: 0.5, tags: 0.2, sessionId: 0.3 };

/**
 * Multiplies a score by `(1 + w)` for each match — the memory's user is `userId`, its session is
 * `sessionId`, it carries one of `tags` — and clips the result to [0, 1].
 * Returns the boosted score and the factor applied.
 */
export function applyBoost(
  score: number,
  memory: Memory,
  context: BoostContext | undefined,
  weights: BoostWeights = DEFAULT_BOOST_WEIGHTS,
): { score: number; factor: number } {
  let factor = 1;
  if (context) {
    if (context.userId !== undefined && memory.scope.user === context.userId) factor *= 1 + weights.userId;
    if (context.sessionId !== undefined && memory.scope.session === context.sessionId) factor *= 1 + weights.sessionId;
    if (context.tags && context.tags.length > 0 && memory.tags.some((t) => context.tags?.includes(t)))
      factor *= 1 + weights.tags;
  }
  return { score: Math.min(1, Math.max(0, score * factor)), factor };
}

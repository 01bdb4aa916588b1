import type { MemoryApi } from '../model/api.js';
import type { Scope } from '../model/scope.js';
import { describeSetting, type EvalSetting } from './eval-setting.js';

/** One ranked memory, as an evaluation sees it. */
export interface RankedMemory {
  id: string;
  key: string | null;
  text: string;
  score: number;
}

/** Something that ranks memories for a query: a recall setting, a searcher mode, a baseline. */
export interface EvalRanker {
  /** Label in reports. */
  name: string;
  /**
   * True when the ranking depends on the limit (the recall's candidate pool scales with it), so
   * every cut-off k is asked for separately with `limit = k`. @default false
   */
  perK?: boolean | undefined;
  /** The best `limit` memories for `query` within `scope`, best first. */
  rank(query: string, scope: Scope, limit: number): Promise<RankedMemory[]>;
}

/**
 * A ranker over the memory API (the in-process facade or the HTTP client alike): `recall` with
 * the setting's profile and lexical weights, or `search` in the setting's mode with its reranker.
 * The threshold defaults to 0 so the evaluation measures the ranking, not the cut-off. A search
 * takes lexical weights from its instance's configuration (`EngramOptions.recall.lexicalWeights`),
 * so open the instance with them.
 */
export function apiRanker(api: MemoryApi, setting: EvalSetting): EvalRanker {
  const threshold = setting.threshold ?? 0;
  const toRanked = (memory: { id: string; key: string | null; text: string }, score: number): RankedMemory => ({
    id: memory.id,
    key: memory.key,
    text: memory.text,
    score,
  });
  if (setting.mode === 'recall') {
    return {
      name: describeSetting(setting),
      perK: true,
      async rank(query, scope, limit) {
        const result = await api.recall(query, {
          scope,
          limit,
          threshold,
          profile: setting.profile,
          lexicalWeight: setting.lexicalWeight,
          lexicalWeightShort: setting.lexicalWeightShort,
        });
        return result.hits.map((h) => toRanked(h.memory, h.score));
      },
    };
  }
  const mode = setting.mode;
  return {
    name: describeSetting(setting),
    perK: true,
    async rank(query, scope, limit) {
      const result = await api.search(query, { scope, mode, topK: limit, reranker: setting.reranker, threshold });
      return result.hits.slice(0, limit).map((h) => toRanked(h.memory, h.relevance));
    },
  };
}

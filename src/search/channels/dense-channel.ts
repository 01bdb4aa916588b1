import type { Scope } from '../../model/scope.js';
import type { DenseCandidate, SearchGroup } from '../../store/memory-store.js';
import type { MemoryFilter } from '../../model/memory-filter.js';
import { denseSearchGroups } from './grouped-search.js';
import type { ChannelContext, ChannelHit, SearchChannel } from './search-channel.js';

const NARROWING_FIELDS = ['user', 'agent', 'session', 'collection'] as const;

/**
 * The filter of the priority pass: the path's scope narrowed by the priority fields. It can only
 * narrow — `tenant` is never taken from it, and a field the scope already fixes to another value
 * means the pass would match nothing, so it is skipped (undefined). Undefined when no field narrows.
 */
export function narrowedFilter(
  filter: MemoryFilter,
  priority: Partial<Omit<Scope, 'tenant'>> | undefined,
): MemoryFilter | undefined {
  if (!priority) return undefined;
  const scope: Scope = { ...filter.scope };
  let narrowed = false;
  for (const field of NARROWING_FIELDS) {
    const value = priority[field];
    if (typeof value !== 'string' || value === '') continue;
    if (scope[field] !== undefined) {
      if (scope[field] !== value) return undefined;
      continue;
    }
    scope[field] = value;
    narrowed = true;
  }
  return narrowed ? { ...filter, scope } : undefined;
}

/** One dense search of the channel: a query vector over the path's scope or its priority scope. */
interface DensePass {
  rows: DenseCandidate[];
  priority: boolean;
}

/** Merges a path's passes by id keeping the maximum cosine; `dense.priority` keeps the priority passes' maximum. */
function mergePasses(passes: readonly DensePass[]): ChannelHit[] {
  const merged = new Map<string, ChannelHit>();
  for (const { rows, priority } of passes) {
    for (const row of rows) {
      const seen = merged.get(row.id);
      if (!seen) {
        const extra = priority ? { 'dense.priority': row.cosine } : undefined;
        const { id, cosine: score, updatedAt, type, document } = row;
        merged.set(id, { id, score, extra, updatedAt, type, document });
      } else {
        seen.score = Math.max(seen.score, row.cosine);
        if (priority) seen.extra = { 'dense.priority': Math.max(seen.extra?.['dense.priority'] ?? -1, row.cosine) };
      }
    }
  }
  return [...merged.values()];
}

/**
 * Dense channel: one `denseSearch` per query vector, plus — when a priority scope is set — the
 * same searches restricted to it (the multi-path searcher's vector recall, path B). All passes run in parallel and
 * are merged by id keeping the maximum cosine; `extra['dense.priority']` marks priority finds.
 * `runGroups` asks the store for every path's pool in one grouped search per pass.
 */
export const denseChannel: SearchChannel = {
  name: 'dense',
  async run(context: ChannelContext): Promise<ChannelHit[]> {
    const { store, filter, model, limit, analyzer } = context;
    const passes: Array<Promise<DensePass>> = [];
    const priorityFilter = narrowedFilter(filter, context.priority);
    for (const vector of context.queryVectors) {
      const search = store.denseSearch({ filter, vector, model, limit, analyzer });
      passes.push(search.then((rows) => ({ rows, priority: false })));
      if (priorityFilter) {
        passes.push(
          store
            .denseSearch({ filter: priorityFilter, vector, model, limit, analyzer })
            .then((rows) => ({ rows, priority: true })),
        );
      }
    }
    return mergePasses(await Promise.all(passes));
  },
  async runGroups(context: ChannelContext, groups: SearchGroup[]): Promise<ChannelHit[][]> {
    const { store, filter, model, analyzer } = context;
    const passes: Array<Promise<{ lists: DenseCandidate[][]; priority: boolean }>> = [];
    const priorityFilter = narrowedFilter(filter, context.priority);
    for (const vector of context.queryVectors) {
      passes.push(
        denseSearchGroups(store, { filter, vector, model, groups, analyzer }).then((lists) => ({
          lists,
          priority: false,
        })),
      );
      if (priorityFilter) {
        const search = denseSearchGroups(store, { filter: priorityFilter, vector, model, groups, analyzer });
        passes.push(search.then((lists) => ({ lists, priority: true })));
      }
    }
    const done = await Promise.all(passes);
    return groups.map((_, i) => mergePasses(done.map((p) => ({ rows: p.lists[i] ?? [], priority: p.priority }))));
  },
};

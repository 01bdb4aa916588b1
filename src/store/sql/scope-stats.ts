import type { EmbeddingInfo } from '../../model/memory.js';
import type { ScopeStats } from '../../model/memory-filter.js';
import type { MemoryStatus, MemoryType } from '../../model/memory-type.js';

/** One group of the stats query: rows of one type, status and embedding space. */
export interface StatsGroup {
  type: string;
  status: string;
  model: string | null;
  dim: number | null;
  n: number;
}

/** The stats query over a WHERE of alias `m` (see {@link scopeStats}). */
export function statsSql(table: string, countAll: string, where: string): string {
  return `SELECT m.type AS type, m.status AS status, m.embed_model AS model, m.embed_dim AS dim, ${countAll} AS n
    FROM ${table} m WHERE ${where} GROUP BY m.type, m.status, m.embed_model, m.embed_dim`;
}

/** Embedding spaces, most rows first, then by model and dim in byte order (the facade's model check reads the first). */
export function compareModels(a: EmbeddingInfo & { count: number }, b: EmbeddingInfo & { count: number }): number {
  return b.count - a.count || (a.model < b.model ? -1 : a.model > b.model ? 1 : a.dim - b.dim);
}

/** Shapes the groups into {@link ScopeStats}, `models` ordered by {@link compareModels}. */
export function scopeStats(groups: readonly StatsGroup[]): ScopeStats {
  const stats: ScopeStats = { total: 0, byType: {}, byStatus: {}, models: [] };
  const models = new Map<string, EmbeddingInfo & { count: number }>();
  for (const g of groups) {
    stats.total += g.n;
    stats.byType[g.type as MemoryType] = (stats.byType[g.type as MemoryType] ?? 0) + g.n;
    stats.byStatus[g.status as MemoryStatus] = (stats.byStatus[g.status as MemoryStatus] ?? 0) + g.n;
    if (g.model === null || g.dim === null) continue;
    const key = JSON.stringify([g.model, g.dim]);
    const entry = models.get(key) ?? { model: g.model, dim: g.dim, count: 0 };
    entry.count += g.n;
    models.set(key, entry);
  }
  stats.models = [...models.values()].sort(compareModels);
  return stats;
}

/**
 * How common each word is in the memories table, read from the planner's statistics: ANALYZE
 * (autovacuum runs it) keeps the most common lexemes of the `fts` tsvector column with the share
 * of rows holding each (`pg_stats.most_common_elems` / `most_common_elem_freqs`).
 *
 * Why: PostgreSQL's `ts_rank` weighs a word by how often a row holds it, not by how rare it is, and
 * the full-text channel ORs the query's words. A word held by a large share of the rows ("it",
 * "s", "the") therefore both ranks rows that only share it first and makes the query rank most of
 * the table: on 100k memories in one scope a LoCoMo question matched 14k rows and the channel
 * took 43 ms p50 / 187 ms p95 (bench/store-fulltext.ts). Such a word carries almost no
 * information (BM25 gives it an IDF near zero), so the channel drops it before querying.
 */
import type { SqlQueries } from '../sql/query-runner.js';
import { fullTextDocument } from './pg-full-text.js';

/** Below this many rows in the table the channel is cheap and no word is dropped. */
export const TERM_SHARE_MIN_ROWS = 10_000;

/** Share of rows holding each common word, or null when the table has no statistics (yet). */
export type TermShares = ReadonlyMap<string, number> | null;

/**
 * The query's terms without the words held by more than `maxShare` of the rows; phrases and
 * words the statistics do not list are kept. When every term is that common, the least common
 * one is kept, so the channel still answers.
 */
export function dropCommonTerms(terms: readonly string[], shares: TermShares, maxShare: number): string[] {
  if (shares === null || maxShare >= 1) return [...terms];
  const shareOf = (term: string): number => {
    const words = fullTextDocument(term).split(' ');
    return words.length === 1 ? (shares.get(words[0] as string) ?? 0) : 0;
  };
  const kept = terms.filter((t) => shareOf(t) <= maxShare);
  if (kept.length > 0 || terms.length === 0) return kept;
  return [terms.reduce((best, t) => (shareOf(t) < shareOf(best) ? t : best))];
}

/**
 * The word shares of one schema's memories table, cached for `ttlMs` (statistics change only
 * when ANALYZE runs). On a Citus coordinator they come from every shard (see `shardStats`). A
 * failed read, a table under {@link TERM_SHARE_MIN_ROWS} rows, or one with no statistics (never
 * analysed) gives null: every term is kept.
 */
export class TermShareCache {
  private cached: { at: number; shares: Promise<TermShares> } | undefined;

  /**
   * @param read runs a read on a pooled connection (only when the cache is empty or stale)
   * @param ttlMs @default 600000 (ten minutes)
   */
  constructor(
    private readonly schema: string,
    private readonly read: (work: (sql: SqlQueries) => Promise<TermShares>) => Promise<TermShares>,
    private readonly ttlMs = 600_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<TermShares> {
    if (this.cached === undefined || this.now() - this.cached.at > this.ttlMs) {
      this.cached = { at: this.now(), shares: this.read((sql) => this.load(sql)).catch(() => null) };
    }
    return this.cached.shares;
  }

  private async load(sql: SqlQueries): Promise<TermShares> {
    const rows = await sql.all<StatsRow>(
      `SELECT s.most_common_elems::text::text[] AS elems, s.most_common_elem_freqs::float8[] AS freqs, c.reltuples::float8 AS n
         FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
         LEFT JOIN pg_stats s ON s.schemaname = ns.nspname AND s.tablename = c.relname AND s.attname = 'fts'
        WHERE ns.nspname = $1 AND c.relname = 'engram_memories'`,
      [this.schema],
    );
    const row = rows[0];
    if (row?.elems && row.freqs) return sharesOf([row]);
    return sharesOf(await shardStats(sql, this.schema));
  }
}

interface StatsRow {
  elems: string[] | null;
  freqs: number[] | null;
  n: number | null;
}

/**
 * The shares over statistics of one table or of its shards: a word's share is the row-weighted
 * mean of its shares (0 where a shard does not list it, i.e. it is below that shard's least common
 * listed word). Null under {@link TERM_SHARE_MIN_ROWS} rows or without statistics.
 */
function sharesOf(parts: readonly StatsRow[]): TermShares {
  const listed = parts.filter((p) => p.elems && p.freqs && (p.n ?? 0) > 0);
  const total = listed.reduce((sum, p) => sum + (p.n ?? 0), 0);
  if (listed.length === 0 || total < TERM_SHARE_MIN_ROWS) return null;
  const shares = new Map<string, number>();
  for (const p of listed) {
    // most_common_elem_freqs has one share per element, then the minimum, maximum and null share.
    const weight = (p.n ?? 0) / total;
    p.elems?.forEach((word, i) => shares.set(word, (shares.get(word) ?? 0) + Number(p.freqs?.[i] ?? 0) * weight));
  }
  return shares;
}

/**
 * On a Citus coordinator the distributed table holds no rows and no statistics; each shard on
 * its worker has its own (its ANALYZE, autovacuum's there). Read them all — one fan-out to every
 * shard, once per cache period. Empty anywhere else.
 */
async function shardStats(sql: SqlQueries, schema: string): Promise<StatsRow[]> {
  const distributed = await sql.all<{ rel: string | null }>(
    `SELECT CASE WHEN to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN NULL
                 ELSE (SELECT p.logicalrelid::regclass::text FROM pg_dist_partition p
                        WHERE p.logicalrelid = to_regclass(format('%I.engram_memories', $1::text))) END AS rel`,
    [schema],
  );
  const rel = distributed[0]?.rel;
  if (!rel) return [];
  // %s is each shard's qualified name; the statistics of that shard on its worker, as JSON.
  const command = `SELECT json_build_object('n', c.reltuples, 'elems', s.most_common_elems::text::text[], 'freqs', s.most_common_elem_freqs)
      FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = c.relnamespace::regnamespace::name AND s.tablename = c.relname AND s.attname = 'fts'
     WHERE c.oid = '%s'::regclass`;
  const results = await sql.all<{ success: boolean; result: string }>(
    `SELECT success, result FROM run_command_on_shards($1::regclass, $2)`,
    [rel, command],
  );
  return results.filter((r) => r.success).map((r) => JSON.parse(r.result) as StatsRow);
}

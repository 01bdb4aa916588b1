import type { EmbeddingInfo } from '../../model/memory.js';
import { unitVector } from '../../vector/unit-cosine.js';
import type { LexicalCandidate, LexicalQuery } from '../memory-store.js';
import { filterWhere, spaceWhere } from '../sql/filter-where.js';
import {
  MAX_GROUPS_PER_PASS,
  lexicalScratch,
  rankCachedLexical,
  rankCachedLexicalGroups,
  type RankedLexical,
  type TermPostings,
} from './cached-lexical.js';
import { ftsTerms, type FtsTerm } from './fts-text.js';
import { termKey, type LexicalIndex, type Postings } from './lexical-index.js';
import { planLexicalTerms, type LexicalPlanOptions } from './lexical-plan.js';
import { filterPredicate } from './slot-filter.js';
import { sqliteDialect } from './sqlite-dialect.js';
import type { SqliteRunner } from './sqlite-runner.js';
import { ALL_USERS, type VectorCache } from './vector-cache.js';
import type { SlotFilter, SlotMeta, VectorPartition } from './vector-partition.js';

/** The lexical options of the SQLite store (see `SqliteStoreOptions`). */
export interface SqliteLexicalOptions {
  lexicalRankAllBelow: number;
  lexicalCommonShare: number;
  lexicalScanCap: number;
}

/**
 * The cosines a query asks its candidates to carry, from the partition they came from (a recall
 * or a search then scores none of them again): `scoreWith`'s as the dense search scores the row,
 * `storedCosinesWith`'s as `storedCosines` gives them.
 */
function scoreCandidates(partition: VectorPartition, { candidates, pks }: RankedLexical, query: LexicalQuery): void {
  if (candidates.length === 0) return;
  scoreWith(partition, candidates, pks, query.scoreWith);
  const vectors = query.storedCosinesWith;
  if (vectors === undefined) return;
  const stored = partition.storedCosinesOfPks(pks, vectors);
  candidates.forEach((c, i) => {
    const cosine = stored[i];
    if (cosine !== undefined) c.storedCosine = cosine;
  });
}

/**
 * Gives each candidate its cosine with `vector` exactly as the dense search scores its row. A zero
 * vector is similar to nothing there, so it gives none.
 */
function scoreWith(
  partition: VectorPartition,
  candidates: LexicalCandidate[],
  pks: readonly number[],
  vector: Float32Array | undefined,
): void {
  if (vector === undefined) return;
  const unit = unitVector(vector);
  if (unit === null || unit.every((v) => v === 0)) return;
  const cosines = partition.cosinesOfPks(pks, unit);
  candidates.forEach((c, i) => {
    const cosine = cosines[i];
    if (cosine !== undefined) c.cosine = cosine;
  });
}

/** A WHERE over alias `m` with its parameters. */
interface Where {
  sql: string;
  params: unknown[];
}

/**
 * SQLite's lexical channel: from the in-memory inverted index beside a vector partition when the
 * query names an embedding space (the recall always does), from FTS5 otherwise; with the cost cap
 * for common terms (see the store README).
 */
export class SqliteLexicalSearch {
  /** Corpus statistics for lexical planning, valid until the next write (ours or another process's). */
  private corpus: { version: number; dirty: boolean; total: number | null; df: Map<string, number> } = {
    version: -1,
    dirty: true,
    total: null,
    df: new Map(),
  };

  constructor(
    private readonly runner: SqliteRunner,
    private readonly options: SqliteLexicalOptions,
  ) {}

  /** Called after every committed write of this process. */
  markDirty(): void {
    this.corpus.dirty = true;
  }

  /** Top candidates of a validated query; from `cache` when the query names a space and there is one. */
  search(query: LexicalQuery, cache: VectorCache | null): LexicalCandidate[] {
    return this.searchGroups([query], cache)[0] ?? [];
  }

  /**
   * Validated queries that differ only in their types and limits (a grouped search): from the
   * cache, the terms' postings are read and scored once for all of them.
   */
  searchGroups(queries: LexicalQuery[], cache: VectorCache | null): LexicalCandidate[][] {
    const first = queries[0];
    const terms = first === undefined ? [] : ftsTerms(first.terms);
    if (first === undefined || terms.length === 0) return queries.map(() => []);
    if (cache !== null && first.space !== undefined) return this.cachedLexical(cache, queries, first.space, terms);
    return queries.map((q) => this.ftsLexical(q, terms));
  }

  private get planOptions(): LexicalPlanOptions {
    return { rankAllBelow: this.options.lexicalRankAllBelow, commonShare: this.options.lexicalCommonShare };
  }

  private corpusStats(): { total: () => number; df: (token: string) => number } {
    const version = this.runner.prepare<[], number>('PRAGMA data_version').pluck().get() as number;
    if (this.corpus.dirty || this.corpus.version !== version) {
      this.corpus = { version, dirty: false, total: null, df: new Map() };
    }
    const corpus = this.corpus;
    return {
      total: () =>
        (corpus.total ??= this.runner.prepare<[], { n: number }>('SELECT count(*) AS n FROM memories').get()?.n ?? 0),
      df: (token) => {
        let value = corpus.df.get(token);
        if (value === undefined) {
          value =
            this.runner
              .prepare<[string], { doc: number }>('SELECT doc FROM memories_fts_vocab WHERE term = ?')
              .get(token)?.doc ?? 0;
          if (corpus.df.size > 10_000) corpus.df.clear();
          corpus.df.set(token, value);
        }
        return value;
      },
    };
  }

  /**
   * The lexical channel answered from the vector cache: single-token terms from the partition's
   * in-memory inverted index, multi-token terms (phrases, CJK bigram runs) from FTS5's postings;
   * ranked by {@link rankCachedLexical} with the scope's own statistics. Common terms are planned
   * with the scope's document frequencies; on the bounded path each term contributes only its
   * newest `lexicalScanCap` in-scope matches.
   */
  private cachedLexical(
    cache: VectorCache,
    queries: LexicalQuery[],
    space: EmbeddingInfo,
    terms: FtsTerm[],
  ): LexicalCandidate[][] {
    const { scope } = (queries[0] as LexicalQuery).filter;
    const { partition, index } = cache.lexical(scope.tenant, space.model, space.dim, scope.user ?? ALL_USERS);
    const lists = this.rankCached(partition, index, queries, terms);
    lists.forEach((ranked, i) => scoreCandidates(partition, ranked, queries[i] as LexicalQuery));
    return lists.map((ranked) => ranked.candidates);
  }

  /** {@link cachedLexical}'s ranking, each query's best candidates from the partition's index. */
  private rankCached(
    partition: VectorPartition,
    index: LexicalIndex,
    queries: LexicalQuery[],
    terms: FtsTerm[],
  ): RankedLexical[] {
    // The candidates bring their documents when asked for this index's analyzer.
    const { analyzer } = queries[0] as LexicalQuery;
    const documents = analyzer !== undefined && analyzer === index.analyzerName;
    const withDf = terms.map((t) => ({
      ...t,
      keys: t.tokens.map((token) => termKey(t.column, token)),
      df: t.tokens.length === 0 ? 0 : Math.min(...t.tokens.map((token) => index.storedCount(termKey(t.column, token)))),
    }));
    const { kept, rankAll } = planLexicalTerms(withDf, index.size, this.planOptions);
    const postingsOf = (limit: number, filter: SlotFilter | null): TermPostings[] => {
      const cap = rankAll ? Number.POSITIVE_INFINITY : Math.max(limit, this.options.lexicalScanCap);
      const accept = filter === null || rankAll ? undefined : index.accepts(filter);
      return kept.map((term): TermPostings => {
        if (term.keys.length === 1) {
          const read = index.postings(term.keys[0] as string, cap, accept);
          return rankAll ? read : { ...read, df: term.df };
        }
        // A phrase: FTS5 knows word positions, the in-memory index does not.
        const rows = rankAll
          ? this.rowids('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?', [term.expression])
          : this.rowids('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?', [
              term.expression,
              cap,
            ]);
        const docs: number[] = [];
        for (const pk of rows) {
          const doc = index.docOf(pk);
          if (doc !== undefined) docs.push(doc);
        }
        return { docs, tfs: docs.map(() => 1), df: rankAll ? undefined : term.df };
      });
    };
    if (queries.length === 1) {
      const q = queries[0] as LexicalQuery;
      const filter = filterPredicate(q.filter, partition.statuses(), (at) => partition.coversValidAt(at));
      return [rankCachedLexical({ index, filter, terms: postingsOf(q.limit, filter), limit: q.limit, documents })];
    }
    // Ranking every match, the postings do not depend on the filter: read once for every query,
    // each row tested once against the queries' common filter and sorted into them by type.
    if (rankAll && queries.length <= MAX_GROUPS_PER_PASS) {
      const limits = queries.map((q) => q.limit);
      const groups = typeGroups(queries, partition);
      const accept = (doc: number): number => groups(index.idOf(doc) ?? '', index.metaOf(doc));
      return rankCachedLexicalGroups({ index, limits, terms: postingsOf(0, null), accept, documents });
    }
    if (queries.length > MAX_GROUPS_PER_PASS) {
      return queries.map((q) => {
        const filter = filterPredicate(q.filter, partition.statuses(), (at) => partition.coversValidAt(at));
        return rankCachedLexical({ index, filter, terms: postingsOf(q.limit, filter), limit: q.limit, documents });
      });
    }
    return this.boundedGroups(index, queries, kept, typeGroups(queries, partition), documents);
  }

  /**
   * The bounded path for several queries that differ only in their types: each term's newest
   * in-scope matches are read in one walk that hands every row to the queries it belongs to,
   * until each has its `max(limit, lexicalScanCap)` (a phrase: the newest rows FTS5 returns, cut
   * per query); then each query ranks its own rows, as it would alone. A row's queries are asked
   * once (`accept`, one bit per query) and remembered for the ranking.
   */
  private boundedGroups(
    index: LexicalIndex,
    queries: LexicalQuery[],
    kept: ReadonlyArray<FtsTerm & { keys: string[]; df: number }>,
    accept: (id: string, meta: SlotMeta) => number,
    documents: boolean,
  ): RankedLexical[] {
    const caps = queries.map((q) => Math.max(q.limit, this.options.lexicalScanCap));
    const known = new Uint32Array(index.docCount);
    const groupsOf = (doc: number): number => {
      const seen = known[doc] as number;
      if (seen !== 0) return seen - 1;
      const mask = accept(index.idOf(doc) ?? '', index.metaOf(doc));
      known[doc] = mask + 1;
      return mask;
    };
    const perQuery = queries.map((): TermPostings[] => []);
    for (const term of kept) {
      let lists: Postings[];
      if (term.keys.length === 1) lists = index.newestByGroup(term.keys[0] as string, caps, groupsOf);
      else {
        const rows = this.rowids(
          'SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?',
          [term.expression, Math.max(...caps)],
        );
        lists = caps.map((cap) => {
          const docs = rows.slice(0, cap).flatMap((pk) => index.docOf(pk) ?? []);
          return { docs, tfs: docs.map(() => 1) };
        });
      }
      lists.forEach((postings, q) => perQuery[q]?.push({ ...postings, df: term.df }));
    }
    const scratch = lexicalScratch(index);
    return queries.map((q, i) => {
      const bit = 2 ** i;
      const inQuery = (doc: number): number => ((groupsOf(doc) & bit) === 0 ? 0 : 1);
      const terms = perQuery[i] ?? [];
      return (
        rankCachedLexicalGroups({ index, limits: [q.limit], terms, accept: inQuery, scratch, documents })[0] ?? {
          candidates: [],
          pks: [],
        }
      );
    });
  }

  /** The lexical channel through FTS5 alone: bm25() over every match, or the bounded windows. */
  private ftsLexical(query: LexicalQuery, terms: FtsTerm[]): LexicalCandidate[] {
    const stats = this.corpusStats();
    const withDf = terms.map((t) => ({
      ...t,
      df: t.tokens.length === 0 ? 0 : Math.min(...t.tokens.map((token) => stats.df(token))),
    }));
    const { kept, rankAll } = planLexicalTerms(withDf, stats.total(), this.planOptions);
    const params = sqliteDialect.params();
    if (rankAll) {
      const match = params.add(kept.map((t) => `(${t.expression})`).join(' OR '));
      const where = filterWhere(query.filter, sqliteDialect, params) + spaceWhere(query.space, params);
      const rows = this.runner
        .prepare<unknown[], { id: string; rank: number }>(
          `SELECT m.id AS id, f.rank AS rank FROM memories_fts f JOIN memories m ON m.pk = f.rowid
           WHERE memories_fts MATCH ${match} AND ${where} ORDER BY f.rank LIMIT ${params.add(query.limit)}`,
        )
        .all(...params.values);
      return rows.map((r) => ({ id: r.id, score: -r.rank }));
    }
    const where = filterWhere(query.filter, sqliteDialect, params) + spaceWhere(query.space, params);
    return this.cappedLexical(kept, { sql: where, params: params.values }, query.limit, stats.total());
  }

  /**
   * The rowids a query selects, newest first, read as one JSON array: thousands of one-column
   * rows cost the driver far more one by one (about 0.4 µs a row with libsql) than one value.
   */
  private rowids(sql: string, params: unknown[]): number[] {
    const list = this.runner
      .prepare<unknown[], string>(`SELECT json_group_array(rowid ORDER BY rowid DESC) FROM (${sql})`)
      .pluck()
      .get(...params);
    return JSON.parse(list ?? '[]') as number[];
  }

  /**
   * Bounded lexical search for terms that each match a large share of the corpus. FTS5's bm25()
   * would first walk every posting list (to count documents per phrase) and then score every
   * match; instead, each term's newest matches are read by rowid (no scoring), a window of the
   * newest rows that is complete for every term is kept, rows are filtered by scope, and ranked
   * by the sum of the IDF of the terms they contain (newest first on ties). Windows move back in
   * time until `limit` rows are found or `lexicalScanCap` rows per term have been examined 8 times.
   */
  private cappedLexical(
    terms: Array<{ expression: string; df: number }>,
    where: Where,
    limit: number,
    total: number,
  ): LexicalCandidate[] {
    const cap = Math.max(limit, this.options.lexicalScanCap);
    const termRows = (expression: string, below: number): number[] =>
      this.rowids(
        'SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? AND rowid < ? ORDER BY rowid DESC LIMIT ?',
        [expression, below, cap],
      );
    // CROSS JOIN pins the join order: look rows up by pk instead of scanning the scope's index.
    const inScope = this.runner.prepare<unknown[], { pk: number; id: string }>(
      `SELECT m.pk AS pk, m.id AS id FROM json_each(?) j CROSS JOIN memories m ON m.pk = j.value WHERE ${where.sql}`,
    );
    const idf = terms.map((t) => Math.log(1 + (total - t.df + 0.5) / (t.df + 0.5)));
    const found: Array<{ pk: number; id: string; score: number }> = [];
    let upper = Number.MAX_SAFE_INTEGER;
    for (let window = 0; window < 8 && found.length < limit && upper > 0; window++) {
      const scores = new Map<number, number>();
      let floor = 0;
      terms.forEach((term, i) => {
        const rows = termRows(term.expression, upper);
        for (const rowid of rows) scores.set(rowid, (scores.get(rowid) ?? 0) + (idf[i] as number));
        if (rows.length === cap) floor = Math.max(floor, rows[rows.length - 1] as number);
      });
      const complete = [...scores.keys()].filter((pk) => pk >= floor);
      for (const row of inScope.all(JSON.stringify(complete), ...where.params)) {
        found.push({ pk: row.pk, id: row.id, score: scores.get(row.pk) as number });
      }
      upper = floor;
      if (floor === 0) break;
    }
    found.sort((a, b) => b.score - a.score || b.pk - a.pk);
    return found.slice(0, limit).map((r) => ({ id: r.id, score: r.score }));
  }
}

/**
 * For queries that differ only in their types: the groups of a row, one bit per query, testing
 * the rest of the filter once.
 */
function typeGroups(queries: LexicalQuery[], partition: VectorPartition): (id: string, meta: SlotMeta) => number {
  const common = filterPredicate(
    { ...(queries[0] as LexicalQuery).filter, types: undefined },
    partition.statuses(),
    (at) => partition.coversValidAt(at),
  );
  const anyType = queries.reduce((bits, q, i) => (q.filter.types === undefined ? bits + 2 ** i : bits), 0);
  const byType = new Map<string, number>();
  queries.forEach((q, i) => {
    for (const type of new Set(q.filter.types ?? [])) byType.set(type, (byType.get(type) ?? 0) + 2 ** i);
  });
  return (id, meta) => (common === null || common.test(id, meta) ? anyType + (byType.get(meta.type) ?? 0) : 0);
}

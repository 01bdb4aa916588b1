import type { SqliteDatabase, SqliteStatement } from '../../util/sqlite-database.js';
import type { Maybe } from '../sql/maybe-async.js';
import type { QueryRunner, SqlQueries } from '../sql/query-runner.js';

/**
 * The engine's {@link QueryRunner} over one SQLite connection: synchronous, prepared
 * statements cached by SQL text (preparing costs more than running most of them), writes in
 * `BEGIN IMMEDIATE` transactions (the write lock is taken up front, so a busy database fails
 * before any work rather than at COMMIT).
 */
export class SqliteRunner implements QueryRunner {
  private readonly statements = new Map<string, SqliteStatement>();
  /** What {@link afterCommit} holds until the open transaction commits. */
  private readonly committed: Array<() => void> = [];
  /** How many {@link transaction}s are running (nested ones are savepoints). */
  private depth = 0;
  /** Whether the outermost running {@link transaction} began inside one opened elsewhere. */
  private insideForeign = false;
  readonly queries: SqlQueries;

  constructor(private readonly db: SqliteDatabase) {
    this.queries = {
      all: <R>(sql: string, params: readonly unknown[]) => this.prepare<unknown[], R>(sql).all(...params),
      run: (sql: string, params: readonly unknown[]) => this.prepare(sql).run(...params).changes,
    };
  }

  /** A cached prepared statement (filters yield a bounded set of SQL shapes). */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): SqliteStatement<P, R> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      if (this.statements.size >= 512) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement as unknown as SqliteStatement<P, R>;
  }

  read<T>(_operation: string, work: (sql: SqlQueries) => Maybe<T>): Maybe<T> {
    return work(this.queries);
  }

  transaction<T>(_operation: string, work: (sql: SqlQueries) => Maybe<T>): Maybe<T> {
    const outermost = this.depth === 0;
    if (outermost) this.insideForeign = this.db.inTransaction;
    // A savepoint that rolls back drops what it asked to run; the rest waits for the outermost commit.
    const mark = this.committed.length;
    this.depth++;
    try {
      const out = this.db
        .transaction((): T => {
          const result = work(this.queries);
          // A SQLite transaction commits when its function returns: work must not wait.
          if (result instanceof Promise) throw new Error('a SQLite transaction cannot wait for a promise');
          return result;
        })
        .immediate();
      if (outermost) for (const fn of this.committed.splice(0)) fn();
      return out;
    } catch (error: unknown) {
      this.committed.length = mark;
      throw error;
    } finally {
      this.depth--;
    }
  }

  /**
   * Runs `fn` once the outermost {@link transaction} now running has committed (at once outside
   * any transaction); a transaction that rolls back drops it. For caches that must show only
   * committed rows. Returns false, and drops `fn`, inside a transaction this runner did not begin
   * (its commit is not seen here): the caller must then forget what it would have updated.
   */
  afterCommit(fn: () => void): boolean {
    if (this.depth > 0 ? this.insideForeign : this.db.inTransaction) return false;
    if (this.depth > 0) this.committed.push(fn);
    else fn();
    return true;
  }
}

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
    return this.db
      .transaction((): T => {
        const out = work(this.queries);
        // A SQLite transaction commits when its function returns: work must not wait.
        if (out instanceof Promise) throw new Error('a SQLite transaction cannot wait for a promise');
        return out;
      })
      .immediate();
  }
}

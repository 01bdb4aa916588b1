import { createRequire } from 'node:module';
import type Libsql from 'libsql';

import { rowFactory, type RowFactory } from './row-factory.js';

/**
 * The synchronous SQLite connection every SQLite user of Engram (the store, the API keys, the
 * embedding cache) goes through: the part of better-sqlite3's API they use, over the `libsql`
 * driver. libsql's native builds come from the npm registry as optional platform packages, with
 * no install script, so installing Engram downloads nothing else and compiles nothing.
 *
 * The wrapper keeps better-sqlite3's behaviour where libsql 0.5's own wrapper differs: `pluck()`
 * applies to `get` and `iterate` too; rows carry only their columns (libsql's `get` adds a
 * `_metadata` field) and `get` after `iterate` binds the new parameters (libsql's reuses the old
 * ones); a value SQLite cannot bind is a TypeError, not a native panic that would
 * end the process (libsql aborts on a boolean or a bare Uint8Array); a single `null` parameter is
 * bound as a value; a statement cannot be re-run while one of its iterators is open (libsql
 * would hand the iterator wrong rows); nested transactions are savepoints; a statement of a closed
 * connection throws. Not covered: terminating a worker thread while it runs a statement aborts the
 * process (libsql's neon binding panics); Engram runs no SQLite in worker threads.
 * Figures and the other drivers considered: bench/RESULTS-sqlite-driver.md.
 */
export interface SqliteDatabase {
  /** The path it was opened with (`':memory:'` for a private in-memory database). */
  readonly name: string;
  /** False once closed. */
  readonly open: boolean;
  /** True inside BEGIN ... COMMIT. */
  readonly inTransaction: boolean;
  /** Compiles one statement; `P` are its positional parameters, `R` its row (or plucked value). */
  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): SqliteStatement<P, R>;
  /** Runs one or more statements without parameters. */
  exec(sql: string): void;
  /** `PRAGMA source`: every row, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` in a transaction (a savepoint when one is open): committed when it returns, rolled back when it throws. */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): SqliteTransaction<A, T>;
  /** Closes the connection; idempotent. */
  close(): void;
}

/** A prepared statement (see {@link SqliteDatabase.prepare}). */
export interface SqliteStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): SqliteRunResult;
  /** The first row, or undefined. */
  get(...params: P): R | undefined;
  all(...params: P): R[];
  /** Rows one at a time; the statement is busy until the iterator ends or is closed. */
  iterate(...params: P): IterableIterator<R>;
  /** Rows become the value of their first column. */
  pluck(on?: boolean): this;
}

/** What a write changed. */
export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A transaction function: called (or `deferred`), it begins DEFERRED; `immediate` takes the write lock up front. */
export interface SqliteTransaction<A extends unknown[], T> {
  (...args: A): T;
  deferred(...args: A): T;
  immediate(...args: A): T;
}

/** Options of {@link openSqliteDatabase}. */
export interface SqliteOpenOptions {
  /** How long a statement waits for another connection's lock before SQLITE_BUSY, in ms. @default 5000 */
  timeout?: number | undefined;
}

type Driver = typeof Libsql;
let driver: Driver | null = null;

/** Loaded on first use, so importing a module that can open SQLite loads no native code. */
function loadDriver(): Driver {
  driver ??= createRequire(import.meta.url)('libsql') as Driver;
  return driver;
}

/** Opens (creating when missing) the database file at `path`; `':memory:'` is a private in-memory one. */
export function openSqliteDatabase(path: string, options: SqliteOpenOptions = {}): SqliteDatabase {
  const Database = loadDriver();
  return new LibsqlConnection(path, new Database(path, { timeout: options.timeout ?? 5000 }));
}

const NOT_BINDABLE = 'SQLite3 can only bind numbers, strings, bigints, buffers, and null';

function bindable(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'number':
    case 'bigint':
      return value;
    case 'undefined':
      return null;
    case 'object':
      if (value === null || Buffer.isBuffer(value)) return value;
      if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  }
  throw new TypeError(NOT_BINDABLE);
}

/** libsql reports some errors as plain objects with `libsqlError`; give them SqliteError's shape. */
function driverError(error: unknown): unknown {
  if (error !== null && typeof error === 'object' && 'libsqlError' in error) {
    const e = error as unknown as { message: string; code: string; rawCode?: number };
    return new (loadDriver().SqliteError)(e.message, e.code, e.rawCode);
  }
  return error;
}

class LibsqlConnection implements SqliteDatabase {
  private depth = 0;

  constructor(
    readonly name: string,
    private readonly db: Libsql.Database,
  ) {}

  get open(): boolean {
    return this.db.open;
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  assertOpen(): void {
    if (!this.db.open) throw new TypeError('The database connection is not open');
  }

  prepare<P extends unknown[] = unknown[], R = unknown>(sql: string): SqliteStatement<P, R> {
    this.assertOpen();
    return new LibsqlStatement<P, R>(this, this.db.prepare(sql));
  }

  exec(sql: string): void {
    this.assertOpen();
    try {
      this.db.exec(sql);
    } catch (error) {
      throw driverError(error);
    }
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const statement = this.prepare(`PRAGMA ${source}`);
    return options.simple === true ? statement.pluck().get() : statement.all();
  }

  transaction<A extends unknown[], T>(fn: (...args: A) => T): SqliteTransaction<A, T> {
    const run =
      (begin: string) =>
      (...args: A): T =>
        this.inTransaction ? this.nested(fn, args) : this.outer(begin, fn, args);
    return Object.assign(run('BEGIN'), { deferred: run('BEGIN'), immediate: run('BEGIN IMMEDIATE') });
  }

  private outer<A extends unknown[], T>(begin: string, fn: (...args: A) => T, args: A): T {
    this.exec(begin);
    try {
      const out = checkNotPromise(fn(...args));
      this.exec('COMMIT');
      return out;
    } catch (error) {
      if (this.inTransaction) this.exec('ROLLBACK');
      throw error;
    }
  }

  private nested<A extends unknown[], T>(fn: (...args: A) => T, args: A): T {
    const name = `engram_${++this.depth}`;
    this.exec(`SAVEPOINT ${name}`);
    try {
      const out = checkNotPromise(fn(...args));
      this.exec(`RELEASE ${name}`);
      return out;
    } catch (error) {
      if (this.inTransaction) this.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
      throw error;
    } finally {
      this.depth--;
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function checkNotPromise<T>(out: T): T {
  if (out instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
  return out;
}

/**
 * Statements run in libsql's raw mode (rows as arrays, the cheapest to read) and rows are built
 * here by a factory compiled from the column names ({@link rowFactory}), made once and again
 * whenever the row's width changes (SQLite re-prepares a statement after a schema change).
 */
class LibsqlStatement<P extends unknown[], R> implements SqliteStatement<P, R> {
  private plucked = false;
  /** Builds rows from the column names, made when the first row is read (see {@link rowFactory}). */
  private makeRow: RowFactory | null = null;
  /** The number of columns `makeRow` was made for. */
  private width = -1;
  private openIterators = 0;

  constructor(
    private readonly connection: LibsqlConnection,
    private readonly statement: Libsql.Statement<unknown[]>,
  ) {
    if (statement.reader) statement.raw(true);
  }

  pluck(on = true): this {
    this.plucked = on;
    return this;
  }

  run(...params: P): SqliteRunResult {
    const result = this.call(() => this.statement.run(bind(params))) as SqliteRunResult & { duration?: number };
    return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
  }

  get(...params: P): R | undefined {
    // Through the iterator: libsql 0.5's own get() after an iterate() or all() of the same
    // statement runs it with the previous call's parameters.
    const rows = this.iterate(...params);
    const first = rows.next();
    rows.return?.();
    return first.done === true ? undefined : first.value;
  }

  all(...params: P): R[] {
    return [...this.iterate(...params)];
  }

  iterate(...params: P): IterableIterator<R> {
    const rows = this.call(() => this.statement.iterate(bind(params)) as Iterator<unknown[]>);
    this.openIterators++;
    let done = false;
    const finish = (): IteratorReturnResult<undefined> => {
      if (!done) {
        done = true;
        this.openIterators--;
      }
      return { done: true, value: undefined };
    };
    const iterator: IterableIterator<R> = {
      next: (): IteratorResult<R> => {
        if (done) return finish();
        this.connection.assertOpen();
        let step: IteratorResult<unknown[]>;
        try {
          step = rows.next();
        } catch (error) {
          finish();
          throw driverError(error);
        }
        return step.done === true || step.value === undefined
          ? finish()
          : { done: false, value: this.shape(step.value) };
      },
      return: finish,
      [Symbol.iterator]: () => iterator,
    };
    return iterator;
  }

  private call<T>(work: () => T): T {
    this.connection.assertOpen();
    if (this.openIterators > 0) throw new TypeError('This statement is busy executing a query');
    try {
      return work();
    } catch (error) {
      throw driverError(error);
    }
  }

  private shape(values: unknown[]): R {
    if (this.plucked) return values[0] as R;
    let make = this.makeRow;
    if (make === null || this.width !== values.length) {
      make = this.makeRow = rowFactory(this.statement.columns().map((c) => c.name));
      this.width = values.length;
    }
    return make(values) as R;
  }
}

function bind(params: readonly unknown[]): unknown[] {
  // Always one array argument: libsql reads a lone object argument (even null) as named parameters.
  return params.map(bindable);
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/util/sqlite-database.js';

let db: SqliteDatabase;

beforeEach(() => {
  db = openSqliteDatabase(':memory:');
  db.exec('CREATE TABLE t (pk INTEGER PRIMARY KEY, x TEXT UNIQUE, b BLOB)');
  for (let i = 1; i <= 10; i++) db.prepare('INSERT INTO t (x) VALUES (?)').run(`v${i}`);
});

afterEach(() => db.close());

function firstOf<R>(rows: IterableIterator<R>): R | undefined {
  const first = rows.next();
  rows.return?.();
  return first.done === true ? undefined : first.value;
}

describe('openSqliteDatabase: reads', () => {
  it('gives rows with exactly their columns, and pluck applies to get, all and iterate', () => {
    expect(db.prepare('SELECT pk, x FROM t WHERE pk = ?').get(3)).toEqual({ pk: 3, x: 'v3' });
    expect(Object.keys(db.prepare('SELECT pk, x FROM t WHERE pk = ?').get(3) as object)).toEqual(['pk', 'x']);
    const plucked = db.prepare<[number], string>('SELECT x FROM t WHERE pk <= ? ORDER BY pk').pluck();
    expect(plucked.get(2)).toBe('v1');
    expect(plucked.all(2)).toEqual(['v1', 'v2']);
    expect([...plucked.iterate(3)]).toEqual(['v1', 'v2', 'v3']);
    expect(db.prepare('SELECT x FROM t WHERE pk = 99').get()).toBeUndefined();
    expect(db.pragma('data_version', { simple: true })).toBeTypeOf('number');
    expect(db.pragma('table_info(t)')).toHaveLength(3);
  });

  it('gives columns of any name, a repeated name keeping its last value', () => {
    const odd = db.prepare(
      `SELECT pk AS "a b", x AS "it's", x AS '"q"', 1 AS "名前", pk AS "0", 'first' AS dup, 'last' AS dup FROM t WHERE pk = 2`,
    );
    expect(odd.get()).toStrictEqual({ 'a b': 2, "it's": 'v2', '"q"': 'v2', 名前: 1, '0': 2, dup: 'last' });
    expect(odd.all()).toStrictEqual([odd.get()]);
  });

  it('binds each call its own parameters, whatever the order of get, all, iterate and run on one statement', () => {
    const read = db.prepare<[number], { x: string }>('SELECT x FROM t WHERE pk = ?');
    const insert = db.prepare<[string], { pk: number; x: string }>('INSERT INTO t (x) VALUES (?) RETURNING pk, x');
    const expected = new Map<number, string>(Array.from({ length: 10 }, (_, i) => [i + 1, `v${i + 1}`]));
    let state = 7;
    const next = (n: number): number => (state = (state * 1103515245 + 12345) % 2147483648) % n;
    const wrong: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const op = next(7);
      if (op < 3) {
        const value = `w${i}`;
        const row = op === 0 ? insert.get(value) : op === 1 ? insert.all(value)[0] : firstOf(insert.iterate(value));
        if (row?.x !== value) wrong.push(`insert ${op}: ${row?.x} != ${value}`);
        if (row !== undefined) expected.set(row.pk, value);
      } else {
        const pk = 1 + next(expected.size);
        const x =
          op === 3 ? read.get(pk)?.x : op === 4 ? read.all(pk)[0]?.x : op === 5 ? [...read.iterate(pk)][0]?.x : null;
        if (op === 6) {
          db.prepare('UPDATE t SET x = ? WHERE pk = ?').run(`u${i}`, pk);
          expected.set(pk, `u${i}`);
        } else if (x !== expected.get(pk)) wrong.push(`read ${op} of ${pk}: ${x} != ${expected.get(pk)}`);
      }
    }
    expect(wrong).toEqual([]);
    const stored = db.prepare<[], { pk: number; x: string }>('SELECT pk, x FROM t').all();
    expect(new Map(stored.map((r) => [r.pk, r.x]))).toEqual(expected);
  });

  it('refuses to re-run a statement while one of its iterators is open, and frees it on break', () => {
    const read = db.prepare<[], { pk: number }>('SELECT pk FROM t ORDER BY pk');
    const open = read.iterate();
    expect(open.next().value).toEqual({ pk: 1 });
    expect(() => read.all()).toThrow(/busy/);
    open.return?.();
    for (const row of read.iterate()) {
      expect(row).toEqual({ pk: 1 });
      break;
    }
    expect(read.all()).toHaveLength(10);
  });

  it('follows a schema change: SELECT * after a new column has the new column', () => {
    const all = db.prepare('SELECT * FROM t WHERE pk = ?');
    expect(all.get(1)).toEqual({ pk: 1, x: 'v1', b: null });
    db.exec("ALTER TABLE t ADD COLUMN y TEXT DEFAULT 'd'");
    expect(all.get(1)).toEqual({ pk: 1, x: 'v1', b: null, y: 'd' });
  });
});

describe('openSqliteDatabase: values', () => {
  it('round-trips blobs (Buffer and any typed array), big integers, reals and a lone null', () => {
    const floats = new Float32Array([1.5, -2, 3.25]);
    db.prepare('UPDATE t SET b = ? WHERE pk = 1').run(floats);
    db.prepare('UPDATE t SET b = ? WHERE pk = 2').run(Buffer.from([1, 2, 3]));
    const one = db.prepare<[number], { b: Buffer }>('SELECT b FROM t WHERE pk = ?');
    const b1 = one.get(1)?.b as Buffer;
    expect(Buffer.isBuffer(b1)).toBe(true);
    expect([...new Float32Array(b1.buffer, b1.byteOffset, 3)]).toEqual([1.5, -2, 3.25]);
    expect([...(one.get(2)?.b as Buffer)]).toEqual([1, 2, 3]);
    expect(db.prepare('SELECT ? AS v').get(null)).toEqual({ v: null });
    expect(db.prepare('SELECT ? AS v').get(2n ** 40n)).toEqual({ v: 2 ** 40 });
    expect(db.prepare('SELECT ? AS a, ? AS b').get(0.1, 7)).toEqual({ a: 0.1, b: 7 });
  });

  it('answers a value SQLite cannot bind with a TypeError, and the connection keeps working', () => {
    for (const value of [true, {}, [1], new Date(), () => 1, Symbol('s')]) {
      expect(() => db.prepare('SELECT ? AS v').get(value)).toThrow(TypeError);
    }
    expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 10 });
  });
});

describe('openSqliteDatabase: transactions and errors', () => {
  it('commits on return, rolls back on throw; a nested transaction is a savepoint', () => {
    const count = (): unknown => db.prepare('SELECT count(*) AS n FROM t').pluck().get();
    const add = db.prepare('INSERT INTO t (x) VALUES (?)');
    expect(db.transaction(() => add.run('a').changes).immediate()).toBe(1);
    expect(() =>
      db.transaction(() => {
        add.run('b');
        throw new Error('stop');
      })(),
    ).toThrow('stop');
    expect(count()).toBe(11);
    db.transaction(() => {
      add.run('c');
      expect(() =>
        db.transaction(() => {
          add.run('d');
          throw new Error('inner');
        })(),
      ).toThrow('inner');
      expect(db.inTransaction).toBe(true);
    }).deferred();
    expect(count()).toBe(12);
    expect(db.prepare('SELECT x FROM t WHERE x IN (?, ?)').pluck().all('c', 'd')).toEqual(['c']);
    expect(() => db.transaction(() => Promise.resolve(1))()).toThrow(/promise/);
    expect(db.inTransaction).toBe(false);
  });

  it('reports constraint and syntax errors with SQLite codes', () => {
    const codeOf = (work: () => unknown): unknown => {
      try {
        work();
      } catch (error) {
        return (error as { code?: unknown }).code;
      }
      return 'no error';
    };
    expect(codeOf(() => db.prepare('INSERT INTO t (x) VALUES (?)').run('v1'))).toBe('SQLITE_CONSTRAINT_UNIQUE');
    expect(codeOf(() => db.prepare('INSERT INTO t (pk, x) VALUES (1, ?)').run('new'))).toBe(
      'SQLITE_CONSTRAINT_PRIMARYKEY',
    );
    expect(codeOf(() => [...db.prepare('INSERT INTO t (x) VALUES (?) RETURNING pk').iterate('v2')])).toBe(
      'SQLITE_CONSTRAINT_UNIQUE',
    );
    expect(codeOf(() => db.exec('SELEC 1'))).toBe('SQLITE_ERROR');
  });

  it('waits for another connection’s write lock for the timeout, then fails with SQLITE_BUSY', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-sqlite-db-'));
    const file = join(dir, 'busy.db');
    const a = openSqliteDatabase(file, { timeout: 100 });
    const b = openSqliteDatabase(file, { timeout: 100 });
    try {
      a.pragma('journal_mode = WAL');
      a.exec('CREATE TABLE k (v)');
      a.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      let code: unknown;
      try {
        b.transaction(() => b.prepare('INSERT INTO k VALUES (1)').run()).immediate();
      } catch (error) {
        code = (error as { code?: unknown }).code;
      }
      expect(code).toBe('SQLITE_BUSY');
      expect(Date.now() - started).toBeGreaterThanOrEqual(90);
      expect(b.prepare('SELECT count(*) AS n FROM k').get()).toEqual({ n: 0 });
      a.exec('ROLLBACK');
    } finally {
      a.close();
      b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses statements of a closed connection; close is idempotent', () => {
    const other = openSqliteDatabase(':memory:');
    const statement = other.prepare('SELECT 1 AS one');
    other.close();
    other.close();
    expect(other.open).toBe(false);
    expect(() => statement.get()).toThrow(/not open/);
    expect(() => other.prepare('SELECT 1')).toThrow(/not open/);
  });
});

import { describe, expect, it } from 'vitest';

import { SqliteRunner } from '../../src/store/sqlite/sqlite-runner.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';

function runner(): { runner: SqliteRunner; db: ReturnType<typeof openSqliteDatabase>; ran: string[] } {
  const db = openSqliteDatabase(':memory:');
  db.exec('CREATE TABLE t (v TEXT)');
  return { runner: new SqliteRunner(db), db, ran: [] };
}

describe('SqliteRunner.afterCommit', () => {
  it('runs at once outside a transaction and after the outermost commit inside one', () => {
    const { runner: r, ran } = runner();
    expect(r.afterCommit(() => ran.push('outside'))).toBe(true);
    r.transaction('outer', (sql) => {
      sql.run('INSERT INTO t VALUES (?)', ['a']);
      r.afterCommit(() => ran.push('outer'));
      r.transaction('inner', () => void r.afterCommit(() => ran.push('inner')));
      expect(ran).toEqual(['outside']);
    });
    expect(ran).toEqual(['outside', 'outer', 'inner']);
  });

  it('drops what a rolled-back transaction or savepoint asked for, and nothing else', () => {
    const { runner: r, db, ran } = runner();
    expect(() =>
      r.transaction('fails', () => {
        r.afterCommit(() => ran.push('rolled back'));
        throw new Error('no');
      }),
    ).toThrow('no');
    r.transaction('outer', () => {
      r.afterCommit(() => ran.push('kept'));
      expect(() =>
        r.transaction('savepoint', () => {
          r.afterCommit(() => ran.push('savepoint rolled back'));
          throw new Error('no');
        }),
      ).toThrow('no');
    });
    expect(ran).toEqual(['kept']);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
  });

  it('refuses inside a transaction it did not begin, whose commit it cannot see', () => {
    const { runner: r, db, ran } = runner();
    db.transaction(() => {
      expect(r.afterCommit(() => ran.push('outside the runner'))).toBe(false);
      r.transaction('inside', () => expect(r.afterCommit(() => ran.push('inside the runner'))).toBe(false));
    })();
    expect(ran).toEqual([]);
    // Afterwards it keeps its promise again.
    r.transaction('own', () => void r.afterCommit(() => ran.push('own')));
    expect(ran).toEqual(['own']);
  });
});

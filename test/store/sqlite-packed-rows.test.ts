import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Memory } from '../../src/model/memory.js';
import {
  MEMORY_COLUMN_NAMES,
  MEMORY_SELECT,
  memoryColumnsFromArray,
  type SelectedMemory,
} from '../../src/store/memory-from-columns.js';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.js';
import { openSqliteDatabase, type SqliteDatabase } from '../../src/util/sqlite-database.js';
import { at, makeRecord, randomVector, seededRandom } from './fixtures/records.js';

const T = 'packed';

/** Values a JSON array must carry through unchanged: escapes, controls, astral and separator characters. */
const HARD_TEXTS = [
  'plain words',
  'quotes " and \' and back\\slash \\" \\\\',
  'lines\nand\ttabs\rand\r\nbreaks',
  'controls \u0001\u0002\u001f\u007f\u0080\u009f',
  'emoji 😀👩🏽‍💻 CJK 中文字 RTL עברית Cyrillic Привет',
  'separators \u2028 \u2029 and BOM \ufeff',
  '{"looks": ["like", "json"]}',
  '[1, 2, "three"]',
  'null',
  '12345678901234567890',
  ' leading and trailing spaces ',
  'x'.repeat(70_000),
];

describe('memoryColumnsFromArray', () => {
  it('maps each value to the column of its position', () => {
    const row = memoryColumnsFromArray([...MEMORY_COLUMN_NAMES]) as unknown as Record<string, unknown>;
    expect(Object.keys(row)).toEqual([...MEMORY_COLUMN_NAMES]);
    for (const name of MEMORY_COLUMN_NAMES) expect(row[name]).toBe(name);
  });

  it('refuses anything but an array of every column', () => {
    expect(memoryColumnsFromArray(MEMORY_COLUMN_NAMES.slice(1))).toBeNull();
    expect(memoryColumnsFromArray([...MEMORY_COLUMN_NAMES, 'extra'])).toBeNull();
    expect(memoryColumnsFromArray({ length: MEMORY_COLUMN_NAMES.length })).toBeNull();
    expect(memoryColumnsFromArray(null)).toBeNull();
  });
});

describe('SQLite reads whole rows packed in one JSON array', () => {
  let dir: string;
  let store: SqliteStore;
  let db: SqliteDatabase;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-packed-'));
    // No row cache: every read below goes to SQLite.
    store = createSqliteStore({ path: join(dir, 'rows.db'), rowCacheMaxBytes: 0 });
    db = openSqliteDatabase(join(dir, 'rows.db'));
  });

  afterEach(async () => {
    db.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every row of the tenant as its columns select them one by one, by id. */
  function columnByColumn(): Map<string, Memory> {
    const rows = db.prepare(`SELECT ${MEMORY_SELECT} FROM memories m WHERE m.tenant = ?`).all(T) as SelectedMemory[];
    return new Map(rows.map((row) => [row.id, sqliteDialect.toMemory(row)]));
  }

  it('gives get and list the memories a column-by-column read gives, for every kind of value', async () => {
    const random = seededRandom(11);
    const records = HARD_TEXTS.map((text, i) =>
      makeRecord({
        scope: {
          tenant: T,
          user: `user ${text.slice(0, 20)}`,
          agent: i % 2 ? 'agent "a"' : undefined,
          session: 's\n1',
        },
        text,
        key: i % 3 === 0 ? `key ${text.slice(0, 30)}` : null,
        tags: [text.slice(0, 12), 'tag "quoted"', '标签'],
        level: i % 2 === 0 ? 'fact' : null,
        summary: i % 4 === 0 ? text.slice(0, 50) : null,
        background: i % 5 === 0 ? `background: ${text.slice(0, 40)}` : null,
        sources: [{ type: 'chat', id: `msg-${i}`, role: 'user', content: text.slice(0, 40) }],
        metadata: {
          text: text.slice(0, 60),
          nested: { list: [1, 0.1, 1e-7, -0, 2 ** 53 - 1, null, true, '😀'], empty: {} },
          'key "with" quotes': 'value',
        },
        statedAt: i % 2 === 0 ? at(i) : null,
        embedding: { model: 'm', dim: 8 },
        vector: randomVector(random, 8),
      }),
    );
    await store.insert(records);
    await store.addUsage!(T, [{ id: records[1]!.id, count: 3, lastUsedAt: at(500) }]);
    await store.update(T, records[2]!.id, { text: 'updated "text"\n', updatedAt: at(600) });

    const expected = columnByColumn();
    expect(expected.size).toBe(records.length);
    const ids = records.map((r) => r.id);
    const got = await store.get(T, ids);
    expect(got.map((m) => m.id)).toEqual(ids);
    for (const memory of got) expect(memory).toEqual(expected.get(memory.id));
    expect(got[0]?.text).toBe(HARD_TEXTS[0]);
    expect(got.map((m) => m.text)).toEqual(HARD_TEXTS.map((text, i) => (i === 2 ? 'updated "text"\n' : text)));
    expect(got[1]?.usage).toMatchObject({ count: 3, lastUsedAt: at(500) });

    const listed = await store.list({ scope: { tenant: T } }, { limit: 100 });
    expect(listed.items).toHaveLength(records.length);
    for (const memory of listed.items) expect(memory).toEqual(expected.get(memory.id));
  });

  it('selects the packed array through the dialect', () => {
    expect(sqliteDialect.memorySelect).toContain('json_array(');
    const missing = sqliteDialect.memoryColumns({ memory_row: '["too", "short"]' });
    expect(missing).toBeNull();
    expect(sqliteDialect.memoryColumns({ memory_row: 'not json' })).toBeNull();
  });
});

/**
 * `engram migrate`'s library side on SQLite (PostgreSQL, pgvector and Citus are covered in
 * postgres-pgvector.test.ts and citus.test.ts): what it says, and `--citus` on a store that
 * cannot be distributed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { migrateStore } from '../../src/store/migrate-store.js';
import { expectCode } from '../support/expect-code.js';

const dir = mkdtempSync(join(tmpdir(), 'engram-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('migrateStore', () => {
  it('migrates a SQLite file and says so', async () => {
    const summary = await migrateStore(join(dir, 'a.db'));
    expect(summary).toEqual({ backend: 'sqlite', lines: ['sqlite schema is up to date'], report: null });
  });

  it('refuses --citus on a SQLite store with CONFIG_ERROR, before opening it', async () => {
    const error = await expectCode(migrateStore(join(dir, 'b.db'), { citus: true }), 'CONFIG_ERROR');
    expect(error.message).toMatch(/needs a PostgreSQL store/);
  });
});

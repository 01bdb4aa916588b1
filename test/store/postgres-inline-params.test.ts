/**
 * Values written into a statement as literals (pg-inline-params.ts) read back exactly as the
 * same values bound as parameters, on a real PostgreSQL server, whatever the strings hold.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inlineParams } from '../../src/store/postgres/pg-inline-params.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';

let cluster: PgCluster;
let pool: pg.Pool;
beforeAll(async () => {
  cluster = await startPgCluster({ database: 'engram_inline' });
  pool = new pg.Pool({ connectionString: cluster.url, max: 2 });
});
afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
});

const NASTY = [
  "it's",
  "''; DROP TABLE x; --",
  'back\\slash',
  "\\'; SELECT 1; --",
  '$1',
  '$2 and $10',
  "E'x'",
  'ünïcødé 花生 собака',
  '"quoted" {braces} ,comma',
  '',
];

describe('inlineParams', () => {
  it('reads back every string, array and number as the bound parameters do', async () => {
    const sql = 'SELECT $1::text AS a, $2::text[] AS b, $3::int AS c, $4::text AS d, $5::text[] AS e';
    for (const value of NASTY) {
      const params = [value, NASTY, 42, null, []];
      const bound = await pool.query(sql, params);
      const inlined = await pool.query(inlineParams(sql, params));
      expect(inlined.rows).toEqual(bound.rows);
      expect(inlined.rows[0]).toEqual({ a: value, b: NASTY, c: 42, d: null, e: [] });
    }
  });

  it('reads the same with standard_conforming_strings off', async () => {
    const client = await pool.connect();
    try {
      await client.query('SET standard_conforming_strings = off');
      const { rows } = await client.query(inlineParams('SELECT $1::text AS a, $2::text[] AS b', [NASTY[3], NASTY]));
      expect(rows[0]).toEqual({ a: NASTY[3], b: NASTY });
    } finally {
      await client.query('RESET standard_conforming_strings');
      client.release();
    }
  });

  it('replaces placeholders in one pass ($1 inside a value stays text; $10 is not $1)', () => {
    const params = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    params[0] = '$2';
    expect(inlineParams('$1 $10 $2', params)).toBe("E'$2' E'v10' E'v2'");
  });

  it('refuses what it cannot write exactly', () => {
    expect(() => inlineParams('SELECT $1', [Number.NaN])).toThrow(RangeError);
    expect(() => inlineParams('SELECT $1', ['a\u0000b'])).toThrow(RangeError);
    expect(() => inlineParams('SELECT $1', [{ a: 1 }])).toThrow(TypeError);
    expect(() => inlineParams('SELECT $1', [[1, 2]])).toThrow(TypeError);
    expect(() => inlineParams('SELECT $2', ['x'])).toThrow(RangeError);
  });
});

/**
 * The PostgreSQL full-text channel leaves out words most rows hold (src/store/postgres/
 * pg-term-shares.ts): the rule on its own, and on a real server whose statistics say which
 * words are common.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/store/postgres/index.js';
import { dropCommonTerms, TERM_SHARE_MIN_ROWS } from '../../src/store/postgres/pg-term-shares.js';
import { expectCode } from '../support/expect-code.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { makeRecord } from './fixtures/records.js';

describe('dropCommonTerms', () => {
  const shares = new Map([
    ['the', 0.6],
    ['coffee', 0.08],
    ['lyon', 0.001],
  ]);

  it('drops words held by more than the share, keeps rare and unlisted words and phrases', () => {
    expect(dropCommonTerms(['The', 'coffee', 'Lyon', 'zebra', 'the coffee'], shares, 0.05)).toEqual([
      'Lyon',
      'zebra',
      'the coffee',
    ]);
    expect(dropCommonTerms(['the', 'coffee'], shares, 0.1)).toEqual(['coffee']);
  });

  it('keeps the least common word when every word is common, and everything without statistics or at share 1', () => {
    expect(dropCommonTerms(['the', 'coffee'], shares, 0.05)).toEqual(['coffee']);
    expect(dropCommonTerms(['the', 'coffee'], null, 0.05)).toEqual(['the', 'coffee']);
    expect(dropCommonTerms(['the', 'coffee'], shares, 1)).toEqual(['the', 'coffee']);
    expect(dropCommonTerms([], shares, 0.05)).toEqual([]);
  });
});

describe('the full-text channel on a real server', () => {
  let cluster: PgCluster;
  const scope = { tenant: 'ft' };
  const ROWS = TERM_SHARE_MIN_ROWS;

  beforeAll(async () => {
    cluster = await startPgCluster({ database: 'engram_full_text' });
    // Every row holds "note"; one row in 1,000 holds "lyon".
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'ft', vector: 'app' });
    for (let s = 0; s < ROWS; s += 1000) {
      await store.insert(
        Array.from({ length: 1000 }, (_, k) =>
          makeRecord({ id: `m${s + k}`, text: `note ${s + k}${(s + k) % 1000 === 0 ? ' about lyon' : ''}`, scope }),
        ),
      );
    }
    await store.close();
    const pool = new pg.Pool({ connectionString: cluster.url, max: 1 });
    await pool.query('ANALYZE ft.engram_memories');
    await pool.end();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it('a word every row holds is left out: only the rows with the rare word come back', async () => {
    const store = await createPostgresStore({ connectionString: cluster.url, schema: 'ft', vector: 'app' });
    const rows = await store.lexicalSearch({ filter: { scope }, terms: ['note', 'lyon'], limit: 50 });
    expect(rows.map((r) => r.id).sort()).toEqual(Array.from({ length: ROWS / 1000 }, (_, i) => `m${i * 1000}`).sort());
    // Alone, the common word is kept: the channel still answers.
    expect(await store.lexicalSearch({ filter: { scope }, terms: ['note'], limit: 50 })).toHaveLength(50);
    await store.close();
  });

  it('fullTextMaxShare 1 keeps every word; a share outside (0, 1] is a CONFIG_ERROR', async () => {
    const store = await createPostgresStore({
      connectionString: cluster.url,
      schema: 'ft',
      vector: 'app',
      fullTextMaxShare: 1,
    });
    expect(await store.lexicalSearch({ filter: { scope }, terms: ['note', 'lyon'], limit: 50 })).toHaveLength(50);
    await store.close();
    for (const share of [0, -1, 1.5, Number.NaN])
      await expectCode(
        createPostgresStore({ connectionString: cluster.url, schema: 'ft', fullTextMaxShare: share }),
        'CONFIG_ERROR',
      );
  });
});

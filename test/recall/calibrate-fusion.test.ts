import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Embedder } from '../../src/embed/embedder.js';
import { Engram } from '../../src/engram.js';
import { readCalibration } from '../../src/cli/read-calibration.js';
import { main } from '../../src/cli/main.js';
import type { Memory, MemoryInput } from '../../src/model/memory.js';
import { backgroundPairs } from '../../src/recall/calibration-pairs.js';
import { calibrateFusion } from '../../src/recall/calibrate-fusion.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { expectCode } from '../support/expect-code.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';
import { createTableEmbedder } from '../support/table-embedder.js';

const SYLLABLES = ['ka', 'lo', 'mi', 'ru', 'te', 'zo', 'pa', 'ne'];
/** A made-up word unique to `i` (and `j`), so that only the texts meant to share it do. */
const word = (i: number, j = 0): string => `${SYLLABLES[i % 8]}${SYLLABLES[Math.floor(i / 8) % 8]}${SYLLABLES[j % 8]}x`;
const N = 40;
const DIM = 64;
const unit = (i: number, scale = 1): number[] => Array.from({ length: DIM }, (_, d) => (d === i % DIM ? scale : 0));

/**
 * A conversation of N exchanges: a question turn and its reply (background = the question), with
 * distractors. `wordsAnswer`: the short reply repeats the question's two words and three longer
 * distractors repeat them too (the words find the reply, by a small margin that a noisy cosine
 * easily undoes); or the reply shares no word with the question and one distractor repeats
 * them (only the embedder finds the reply).
 */
function conversation(wordsAnswer: boolean): MemoryInput[] {
  return Array.from({ length: N }, (_, i) => {
    const question = `Ann: what did you think of the ${word(i)} ${word(i, 1)}?`;
    const reply = wordsAnswer ? `Bob: the ${word(i)} ${word(i, 1)}` : `Bob: loved every minute ${word(i, 2)}`;
    const distractors = wordsAnswer
      ? [3, 4, 5].map((k) => `Cid: ${word(i)} ${word(i, 1)} ${word(i, k)} ${word(i, k + 3)} ${word(i + 7, k)}`)
      : [`Cid: ${word(i)} ${word(i, 1)} ${word(i)} listed`];
    return [
      { text: question, key: `q${i}` },
      { text: reply, key: `r${i}`, background: question },
      ...distractors.map((text, k) => ({ text, key: `d${i}.${k}` })),
    ];
  }).flat();
}

/** Query (the question without its label) and reply close together; everything else pseudo-random. */
function meaningEmbedder(): Embedder {
  const table = new Map<string, number[]>();
  for (let i = 0; i < N; i++) {
    table.set(`what did you think of the ${word(i)} ${word(i, 1)}?`, unit(i));
    table.set(`Bob: loved every minute ${word(i, 2)}`, unit(i, 0.9));
  }
  return createTableEmbedder({ dim: DIM, table, model: 'meaning' });
}

async function openWith(embedder: Embedder, memories: MemoryInput[], scope = { tenant: 't', user: 'u' }) {
  const store = createSqliteStore({ path: ':memory:' });
  const engram = await Engram.open({ store, embedder, env: {}, trackUsage: false });
  await engram.addMany(memories, { scope });
  return { engram, store, scope };
}

describe('self-supervised pairs', () => {
  const memory = (id: string, text: string, background: string | null, n = 0): Memory =>
    ({ id, text, background, key: null, createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() }) as Memory;

  it('pair each memory with the background it answers, label stripped, evenly sampled in written order', () => {
    const all = [
      memory('z', 'Ann: how is the dog?', 'Bob: hello Ann', 3),
      memory('a', 'Ann: hi there', null, 0),
      memory('y', 'Bob: hello Ann', 'Ann: hi there', 1),
      memory('c', 'Bob: ok', '  ', 2),
    ];
    expect(backgroundPairs(all, 10)).toEqual([
      { query: 'hi there', targetId: 'y', exclude: 'Ann: hi there' },
      { query: 'hello Ann', targetId: 'z', exclude: 'Bob: hello Ann' },
    ]);
    const many = Array.from({ length: 100 }, (_, i) => memory(`m${i}`, `t${i}`, `question ${i}`, i));
    expect(backgroundPairs(many, 4).map((p) => p.targetId)).toEqual(['m0', 'm25', 'm50', 'm75']);
    // The same memories under other ids, listed in another order: the same sample.
    const renamed = many.map((m, i) => ({ ...m, id: `x${(i * 37) % 100}` })).reverse();
    expect(backgroundPairs(renamed, 4).map((p) => p.query)).toEqual([
      'question 0',
      'question 25',
      'question 50',
      'question 75',
    ]);
  });
});

describe('calibrateFusion', () => {
  it('trusts the words when the embedder is noise and the words find the reply', async () => {
    const { engram, store, scope } = await openWith(
      createTableEmbedder({ dim: DIM, model: 'noise' }),
      conversation(true),
    );
    const cal = await calibrateFusion({ store, embedder: engram.embedder }, { scope });
    expect(cal).toMatchObject({ model: 'noise', pairs: N, calibrated: true });
    expect(cal.curve).toHaveLength(19);
    expect(cal.lexicalMrr).toBeGreaterThan(cal.denseMrr);
    expect(cal.weights?.base).toBeGreaterThanOrEqual(0.8);
    const mrrAt = (t: number) => cal.curve.find((c) => c.trust === t)?.mrr ?? NaN;
    expect(mrrAt(0.95)).toBeGreaterThan(mrrAt(0.5));
    expect(mrrAt(0.5)).toBeGreaterThan(mrrAt(0.05));
    expect(cal.weights?.short).toBe(cal.weights?.base);
    await engram.close();
  });

  it('trusts the cosine when only the embedder finds the reply and the words mislead', async () => {
    const { engram, scope } = await openWith(meaningEmbedder(), conversation(false));
    const cal = await engram.calibrateFusion({ scope });
    expect(cal.denseMrr).toBeGreaterThan(0.9);
    expect(cal.lexicalMrr).toBeLessThan(cal.denseMrr);
    expect(cal.weights?.base).toBeLessThanOrEqual(0.4);
    const mrrAt = (t: number) => cal.curve.find((c) => c.trust === t)?.mrr ?? NaN;
    expect(mrrAt(0.05)).toBeGreaterThan(mrrAt(0.5));
    expect(mrrAt(0.5)).toBeGreaterThan(mrrAt(0.95));
    // The best trust is the best of the curve it reports.
    const best = Math.max(...cal.curve.map((c) => c.mrr));
    expect(cal.curve.find((c) => c.trust === cal.weights?.base)?.mrr).toBe(best);
    await engram.close();
  });

  it('does not calibrate on too few pairs, rejects bad options and a scope of another model', async () => {
    const { engram, store, scope } = await openWith(
      createTableEmbedder({ dim: DIM, model: 'noise' }),
      conversation(true).slice(0, 30),
    );
    const few = await engram.calibrateFusion({ scope });
    expect(few).toMatchObject({ pairs: 6, calibrated: false, weights: null, curve: [] });
    await expectCode(engram.calibrateFusion({ scope, maxPairs: 0 }), 'INVALID_INPUT');
    await expectCode(engram.calibrateFusion({ scope, trusts: [1.5] }), 'INVALID_INPUT');
    await expectCode(engram.calibrateFusion({ scope: { tenant: '' } }), 'INVALID_SCOPE');
    const other = await Engram.open({
      store,
      embedder: createTableEmbedder({ dim: DIM, model: 'other' }),
      ownResources: false,
    });
    await expectCode(other.calibrateFusion({ scope }), 'MODEL_MISMATCH');
    await other.close();
    await engram.close();
  });
});

describe('a calibration in the recall defaults', () => {
  const query = `what about ${word(3)} ${word(3, 1)} and the minute`;

  it('replaces the default profile’s trust for its own embedder only; the seed profile keeps the reference weights', async () => {
    const memories = conversation(true);
    const open = async (calibration?: { model: string; weights: { base: number; short: number } }) => {
      const store = createSqliteStore({ path: ':memory:' });
      const engram = await Engram.open({
        store,
        embedder: createTableEmbedder({ dim: DIM, model: 'noise' }),
        env: {},
        trackUsage: false,
        recall: { calibration },
      });
      await engram.addMany(memories, { scope: { tenant: 't' } });
      return engram;
    };
    const plain = await open();
    const calibrated = await open({ model: 'noise', weights: { base: 0.9, short: 0.9 } });
    const foreign = await open({ model: 'use-lite', weights: { base: 0.9, short: 0.9 } });
    const run = (e: Engram, options: object = {}) =>
      e
        .recall(query, { scope: { tenant: 't' }, limit: 10, threshold: -1, ...options })
        .then((r) => r.hits.map((h) => [h.memory.key, h.score, h.explanation.lexicalWeight]));
    const explicit = await run(plain, { lexicalWeight: 0.9, lexicalWeightShort: 0.9 });
    expect(await run(calibrated)).toEqual(explicit);
    expect(await run(calibrated)).not.toEqual(await run(plain));
    expect(await run(foreign)).toEqual(await run(plain));
    // An explicit weight still wins over the calibration.
    expect(await run(calibrated, { lexicalWeight: 0.5, lexicalWeightShort: 0.5 })).toEqual(await run(plain));
    const seed = await run(calibrated, { profile: 'seed' });
    expect(seed).toEqual(await run(plain, { profile: 'seed' }));
    expect(seed.every(([, , w]) => w === 0.15)).toBe(true);
    const short = await calibrated.recall(word(3), { scope: { tenant: 't' }, profile: 'seed', threshold: -1 });
    expect(short.hits.every((h) => h.explanation.lexicalWeight === 0.3)).toBe(true);
    // The searcher's fast mode ranks with the same calibrated weights.
    const fast = await calibrated.search(query, { scope: { tenant: 't' }, mode: 'fast', topK: 10, threshold: -1 });
    const plainFast = await plain.search(query, { scope: { tenant: 't' }, mode: 'fast', topK: 10, threshold: -1 });
    expect(fast.hits.map((h) => h.memory.key)).toEqual(explicit.map(([key]) => key));
    expect(fast.hits.map((h) => h.memory.key)).not.toEqual(plainFast.hits.map((h) => h.memory.key));
    for (const e of [plain, calibrated, foreign]) await e.close();
  });
});

describe('engram calibrate and ENGRAM_RECALL_CALIBRATION', () => {
  let dir: string;
  let server: LocalHttpServer;
  const saved = process.env['ENGRAM_EMBEDDER_BASE_URL'];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engram-calibrate-'));
    // A real OpenAI-compatible embeddings endpoint on 127.0.0.1, serving hashed bag-of-words vectors.
    const hashed = new HashedEmbedder({ dim: 64 });
    server = await startLocalServer(async (request) => {
      const vectors = await hashed.embed((request.body as { input: string[] }).input);
      return {
        json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) },
      };
    });
    process.env['ENGRAM_EMBEDDER_BASE_URL'] = server.url;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env['ENGRAM_EMBEDDER_BASE_URL'];
    else process.env['ENGRAM_EMBEDDER_BASE_URL'] = saved;
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('saves what it measured; the file is read back, a malformed one is a CONFIG_ERROR', async () => {
    const db = join(dir, 'c.db');
    const lines = conversation(true).map((m) => JSON.stringify(m));
    await writeFile(join(dir, 'm.jsonl'), `${lines.join('\n')}\n`);
    const errors: string[] = [];
    const out = { error: (t: string) => errors.push(t) };
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(
      await main(['node', 'engram', '--store', db, '--embedder', 'http:bow', 'import', join(dir, 'm.jsonl')], out),
    ).toBe(0);
    const file = join(dir, 'cal.json');
    expect(
      await main(
        ['node', 'engram', '--store', db, '--embedder', 'http:bow', '--json', 'calibrate', '--save', file],
        out,
      ),
    ).toBe(0);
    expect(errors).toEqual([]);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { model: string; pairs: number; calibrated: boolean };
    expect(saved).toMatchObject({ model: 'http:bow', pairs: N, calibrated: true });
    expect(readCalibration(file)).toEqual({
      model: 'http:bow',
      weights: (saved as unknown as { weights: unknown }).weights,
    });
    // The saved calibration reaches the CLI's recall through the environment.
    const recallJson = async (): Promise<unknown> => {
      log.mockClear();
      const q = `what about ${word(3)} ${word(3, 1)}`;
      expect(await main(['node', 'engram', '--store', db, '--embedder', 'http:bow', '--json', 'recall', q], out)).toBe(
        0,
      );
      const hits = (
        JSON.parse(String(log.mock.calls.at(-1)?.[0])) as { hits: Array<{ explanation: { lexicalWeight: number } }> }
      ).hits;
      return hits.map((h) => h.explanation.lexicalWeight);
    };
    const without = await recallJson();
    const strong = join(dir, 'strong.json');
    await writeFile(strong, JSON.stringify({ ...saved, weights: { base: 0.95, short: 0.95 } }));
    process.env['ENGRAM_RECALL_CALIBRATION'] = strong;
    const withCalibration = await recallJson().finally(() => delete process.env['ENGRAM_RECALL_CALIBRATION']);
    expect(withCalibration).not.toEqual(without);
    await writeFile(join(dir, 'bad.json'), '{"model": "use-lite", "weights": {"base": 2}}');
    expect(() => readCalibration(join(dir, 'bad.json'))).toThrowError(/not a calibration/);
    process.env['ENGRAM_RECALL_CALIBRATION'] = join(dir, 'missing.json');
    try {
      expect(await main(['node', 'engram', '--store', db, '--embedder', 'http:bow', 'recall', 'anything'], out)).toBe(
        2,
      );
      expect(errors.at(-1)).toMatch(/^error CONFIG_ERROR: ENGRAM_RECALL_CALIBRATION: cannot read/);
    } finally {
      delete process.env['ENGRAM_RECALL_CALIBRATION'];
      log.mockRestore();
    }
  }, 60_000);
});

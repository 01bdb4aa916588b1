import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbedOptions, Embedder } from '../../src/embed/embedder.js';
import { createLruEmbeddingCache } from '../../src/embed/lru-embedding-cache.js';
import { createOpenAICompatibleEmbedder } from '../../src/embed/openai-compatible-embedder.js';
import { createSqliteEmbeddingCache } from '../../src/embed/sqlite-embedding-cache.js';
import { withBatching } from '../../src/embed/with-batching.js';
import { withCache } from '../../src/embed/with-cache.js';
import { withCheckedVectors } from '../../src/embed/with-checked-vectors.js';
import { withRetry } from '../../src/embed/with-retry.js';
import { withTimeout } from '../../src/embed/with-timeout.js';
import { EngramError, isEngramError } from '../../src/model/errors.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';
import { EmbeddingServer, ok } from './embedding-server.js';

/** A small real Embedder (the contract, not our code under test) that records its calls. */
class RecordingEmbedder implements Embedder {
  readonly dim = 4;
  readonly calls: string[][] = [];
  inFlight = 0;
  maxInFlight = 0;
  lastSignal: AbortSignal | undefined;
  constructor(
    readonly model = 'rec',
    private readonly delayMs = 0,
    private failures: EngramError[] = [],
  ) {}
  async embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    this.lastSignal = options?.signal;
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      const failure = this.failures.shift();
      if (failure) throw failure;
      return texts.map((t) => Float32Array.of(t.length, t.charCodeAt(0) || 0, 1, this.model.length));
    } finally {
      this.inFlight--;
    }
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'engram-embed-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('withCache + LRU', () => {
  it('embeds each text once per model, merging duplicates within a call', async () => {
    const inner = new RecordingEmbedder();
    const cache = createLruEmbeddingCache();
    const e = withCache(inner, cache);
    const first = await e.embed(['a', 'bb', 'a']);
    const second = await e.embed(['bb', 'ccc']);
    expect(inner.calls).toEqual([['a', 'bb'], ['ccc']]);
    expect(Array.from(first[0] ?? [])).toEqual(Array.from(first[2] ?? []));
    expect(Array.from(second[0] ?? [])).toEqual(Array.from(first[1] ?? []));
    expect(e.model).toBe('rec');
    expect(e.dim).toBe(4);
    // Same cache, other model id: no cross-talk.
    const other = withCache(new RecordingEmbedder('other-model'), cache);
    const [v] = await other.embed(['a']);
    expect(v?.[3]).toBe('other-model'.length);
  });

  it('calls the inner embedder once for concurrent embeds of the same text', async () => {
    const inner = new RecordingEmbedder('rec', 30);
    const e = withCache(inner, createLruEmbeddingCache());
    const results = await Promise.all([e.embed(['same']), e.embed(['same']), e.embed(['same', 'new'])]);
    expect(inner.calls).toEqual([['same'], ['new']]);
    expect(results.map((r) => Array.from(r[0] ?? []))).toEqual(Array(3).fill(Array.from(results[0]?.[0] ?? [])));
  });

  it('returns copies, so callers cannot corrupt the cache', async () => {
    const e = withCache(new RecordingEmbedder(), createLruEmbeddingCache());
    const [v] = await e.embed(['x']);
    v?.fill(99);
    const [again] = await e.embed(['x']);
    expect(again?.[0]).toBe(1);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const inner = new RecordingEmbedder();
    const cache = createLruEmbeddingCache({ maxEntries: 2 });
    const e = withCache(inner, cache);
    await e.embed(['a', 'b']);
    await e.embed(['a']); // a is now the most recent
    await e.embed(['c']); // evicts b
    expect(cache.size).toBe(2);
    await e.embed(['a', 'b']);
    expect(inner.calls).toEqual([['a', 'b'], ['c'], ['b']]);
  });

  it('does not cache failures and lets the next call try again', async () => {
    const inner = new RecordingEmbedder('rec', 0, [new EngramError('EMBEDDER_ERROR', 'boom')]);
    const e = withCache(inner, createLruEmbeddingCache());
    await expect(e.embed(['x'])).rejects.toMatchObject({ code: 'EMBEDDER_ERROR' });
    expect(await e.embed(['x'])).toHaveLength(1);
    expect(inner.calls).toEqual([['x'], ['x']]);
  });
});

describe('withCache + SQLite', () => {
  it('persists vectors as float32 blobs keyed by model + sha256(text) across reopen', async () => {
    const file = path.join(dir, 'nested', 'cache.db');
    const inner = new RecordingEmbedder();
    const cache = createSqliteEmbeddingCache({ path: file });
    const [v] = await withCache(inner, cache).embed(['persist me']);
    await cache.close?.();

    const reopened = createSqliteEmbeddingCache({ path: file });
    const inner2 = new RecordingEmbedder();
    const [again] = await withCache(inner2, reopened).embed(['persist me']);
    expect(inner2.calls).toEqual([]);
    expect(Array.from(again ?? [])).toEqual(Array.from(v ?? []));
    await reopened.close?.();

    const db = openSqliteDatabase(file);
    const row = db.prepare('SELECT model, text_sha256, dim, vector FROM embedding_cache').get() as {
      model: string;
      text_sha256: string;
      dim: number;
      vector: Buffer;
    };
    db.close();
    expect(row.model).toBe('rec');
    expect(row.text_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(row.dim).toBe(4);
    expect(row.vector.length).toBe(16);
    expect(row.vector.readFloatLE(0)).toBe('persist me'.length);
  });

  it('shares in-flight work for concurrent duplicates', async () => {
    const inner = new RecordingEmbedder('rec', 30);
    const cache = createSqliteEmbeddingCache({ path: path.join(dir, 'concurrent.db') });
    const e = withCache(inner, cache);
    await Promise.all([e.embed(['dup', 'one']), e.embed(['dup']), e.embed(['one', 'dup'])]);
    expect(inner.calls).toEqual([['dup', 'one']]);
    await cache.close?.();
    expect(() => cache.getMany('rec', ['dup'])).toThrow(expect.objectContaining({ code: 'STORE_CLOSED' }));
  });

  it('rejects a bad table name with CONFIG_ERROR', () => {
    expect(() => createSqliteEmbeddingCache({ path: ':memory:', table: 'x; DROP' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_ERROR' }),
    );
  });
});

describe('withBatching', () => {
  it('splits into batches, keeps order, and bounds concurrency', async () => {
    const inner = new RecordingEmbedder('rec', 20);
    const texts = Array.from({ length: 10 }, (_, i) => 'x'.repeat(i + 1));
    const vectors = await withBatching(inner, { batchSize: 3, concurrency: 2 }).embed(texts);
    expect(inner.calls.map((c) => c.length).sort()).toEqual([1, 3, 3, 3]);
    expect(vectors.map((v) => v[0])).toEqual(texts.map((t) => t.length));
    expect(inner.maxInFlight).toBe(2);
  });

  it('runs one batch at a time by default', async () => {
    const inner = new RecordingEmbedder('rec', 5);
    await withBatching(inner, { batchSize: 2 }).embed(['a', 'b', 'c', 'd', 'e']);
    expect(inner.calls).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(inner.maxInFlight).toBe(1);
  });
});

describe('withTimeout', () => {
  it('rejects a slow call with a retryable TIMEOUT and aborts the inner call', async () => {
    const inner = new RecordingEmbedder('rec', 300);
    const error = await withTimeout(inner, { timeoutMs: 50 })
      .embed(['x'])
      .catch((e: unknown) => e);
    expect(isEngramError(error, 'TIMEOUT')).toBe(true);
    expect((error as EngramError).isRetryable).toBe(true);
    expect(inner.lastSignal?.aborted).toBe(true);
  });

  it('passes fast calls through', async () => {
    expect(await withTimeout(new RecordingEmbedder(), { timeoutMs: 1000 }).embed(['x'])).toHaveLength(1);
  });
});

describe('withRetry', () => {
  it('retries retryable errors and then succeeds', async () => {
    const transient = () => new EngramError('EMBEDDER_ERROR', '503', { isRetryable: true });
    const inner = new RecordingEmbedder('rec', 0, [transient(), transient()]);
    const vectors = await withRetry(inner, { baseMs: 1 }).embed(['x']);
    expect(vectors).toHaveLength(1);
    expect(inner.calls).toHaveLength(3);
  });

  it('does not retry other errors', async () => {
    const inner = new RecordingEmbedder('rec', 0, [new EngramError('EMBEDDER_ERROR', '400')]);
    await expect(withRetry(inner, { baseMs: 1 }).embed(['x'])).rejects.toMatchObject({ code: 'EMBEDDER_ERROR' });
    expect(inner.calls).toHaveLength(1);
  });
});

describe('withCheckedVectors', () => {
  it('passes good answers through, and wrapping a checked embedder again returns it', async () => {
    const inner = new RecordingEmbedder();
    const checked = withCheckedVectors(inner);
    expect(checked).not.toBe(inner);
    expect(withCheckedVectors(checked)).toBe(checked);
    expect(await checked.embed(['ab', 'c'])).toEqual([Float32Array.of(2, 97, 1, 3), Float32Array.of(1, 99, 1, 3)]);
    expect(inner.calls).toEqual([['ab', 'c']]);
  });

  it('fails an answer of another dimension with EMBEDDER_ERROR naming the embedder', async () => {
    const wide: Embedder = { model: 'wide', dim: 3, embed: async (texts) => texts.map(() => new Float32Array(4)) };
    await expect(withCheckedVectors(wide).embed(['x'])).rejects.toMatchObject({
      code: 'EMBEDDER_ERROR',
      message: expect.stringMatching(/^Embedder wide returned a vector of dimension 4/),
    });
  });
});

describe('middleware over the HTTP embedder', () => {
  const server = new EmbeddingServer();
  beforeAll(() => server.start());
  afterAll(() => server.stop());

  it('cache + batching send each distinct text to the server once', async () => {
    server.script(ok(8));
    const http = createOpenAICompatibleEmbedder({ baseURL: server.baseURL, model: 'm', maxBatchSize: 100 });
    const e = withCache(withBatching(http, { batchSize: 2 }), createLruEmbeddingCache());
    await Promise.all([e.embed(['a', 'b', 'c']), e.embed(['c', 'a'])]);
    await e.embed(['b', 'd']);
    const sent = server.requests.flatMap((r) => r.body.input ?? []);
    expect(sent.sort()).toEqual(['a', 'b', 'c', 'd']);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleEmbedder } from '../../src/embed/openai-compatible-embedder.js';
import { isEngramError, type EngramError } from '../../src/model/errors.js';
import { EmbeddingServer, fakeVector, ok, status, type Behaviour } from './embedding-server.js';

const server = new EmbeddingServer();
beforeAll(() => server.start());
afterAll(() => server.stop());
beforeEach(() => server.script(ok()));

const embedderFor = (extra: Partial<Parameters<typeof createOpenAICompatibleEmbedder>[0]> = {}) =>
  createOpenAICompatibleEmbedder({ baseURL: server.baseURL, model: 'test-model', retryBaseMs: 5, ...extra });

async function failure(promise: Promise<unknown>): Promise<EngramError> {
  try {
    await promise;
  } catch (error) {
    if (isEngramError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const hang: Behaviour = () => new Promise<void>(() => undefined);

describe('createOpenAICompatibleEmbedder against a local HTTP server', () => {
  it('posts {model, input} to {baseURL}/embeddings and returns vectors in input order', async () => {
    server.script((req, res) => {
      // Answer in reverse order: the client must use `index`.
      const input = req.body.input ?? [];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: fakeVector(t, 8) })).reverse() }));
    });
    const e = embedderFor({ apiKey: 'sk-test', headers: { 'x-team': 'engram' } });
    const vectors = await e.embed(['alpha', 'beta', 'gamma']);
    expect(vectors.map((v) => Array.from(v))).toEqual(['alpha', 'beta', 'gamma'].map((t) => fakeVector(t, 8)));
    expect(vectors[0]).toBeInstanceOf(Float32Array);
    expect(server.requests).toHaveLength(1);
    const [req] = server.requests;
    expect(req?.url).toBe('/v1/embeddings');
    expect(req?.body).toEqual({ model: 'test-model', input: ['alpha', 'beta', 'gamma'] });
    expect(req?.headers['authorization']).toBe('Bearer sk-test');
    expect(req?.headers['x-team']).toBe('engram');
    expect(e.model).toBe('http:test-model');
    expect(e.dim).toBe(8);
  });

  it('sends no Authorization header without an API key, and no request for no texts', async () => {
    const e = embedderFor();
    expect(e.dim).toBe(0);
    expect(await e.embed([])).toEqual([]);
    expect(server.requests).toHaveLength(0);
    await e.embed(['x']);
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('splits large inputs into batches of maxBatchSize', async () => {
    const texts = ['a', 'b', 'c', 'd', 'e'];
    const vectors = await embedderFor({ maxBatchSize: 2 }).embed(texts);
    expect(server.requests.map((r) => r.body.input)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map((t) => fakeVector(t, 8)));
  });

  it('retries a 429 after the server-given Retry-After, then succeeds', async () => {
    server.script(status(429, { error: { message: 'slow down' } }, { 'retry-after': '1' }), ok());
    const started = Date.now();
    const vectors = await embedderFor().embed(['hello']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(server.requests).toHaveLength(2);
    expect(Array.from(vectors[0] ?? [])).toEqual(fakeVector('hello', 8));
  });

  it('honours retry-after-ms and retries 500/503 until success', async () => {
    server.script(status(500), status(503, 'upstream down', { 'retry-after-ms': '20' }), ok());
    const vectors = await embedderFor().embed(['x']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after the configured retries with a retryable EMBEDDER_ERROR', async () => {
    server.script(status(502, { error: { message: 'bad gateway' } }));
    const error = await failure(embedderFor({ retries: 2 }).embed(['x']));
    expect(error.code).toBe('EMBEDDER_ERROR');
    expect(error.isRetryable).toBe(true);
    expect(error.details['status']).toBe(502);
    expect(error.message).toContain('bad gateway');
    expect(server.requests).toHaveLength(3);
  });

  it('fails at once on other 4xx with the server message', async () => {
    server.script(status(400, { error: { message: "'input' is too long", type: 'invalid_request_error' } }));
    const error = await failure(embedderFor().embed(['x']));
    expect(error.code).toBe('EMBEDDER_ERROR');
    expect(error.isRetryable).toBe(false);
    expect(error.message).toContain("'input' is too long");
    expect(error.details['status']).toBe(400);
    expect(server.requests).toHaveLength(1);

    server.script(status(401, 'Unauthorized: invalid key'));
    const auth = await failure(embedderFor().embed(['x']));
    expect(auth.message).toContain('invalid key');
    expect(server.requests).toHaveLength(1);
  });

  it('times out a hanging request, retries, and reports TIMEOUT', async () => {
    server.script(hang);
    const started = Date.now();
    const error = await failure(embedderFor({ timeoutMs: 150, retries: 1 }).embed(['x']));
    expect(error.code).toBe('TIMEOUT');
    expect(error.isRetryable).toBe(true);
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  it('recovers when only the first request hangs', async () => {
    server.script(hang, ok());
    const vectors = await embedderFor({ timeoutMs: 150 }).embed(['x']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('retries a dropped connection (network error)', async () => {
    server.script((_req, res) => {
      res.socket?.destroy();
    }, ok());
    const vectors = await embedderFor().embed(['x']);
    expect(vectors).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it('reports a network error after retries as a retryable EMBEDDER_ERROR', async () => {
    const closed = createOpenAICompatibleEmbedder({
      baseURL: 'http://127.0.0.1:1/v1',
      model: 'm',
      retries: 1,
      retryBaseMs: 1,
    });
    const error = await failure(closed.embed(['x']));
    expect(error.code).toBe('EMBEDDER_ERROR');
    expect(error.isRetryable).toBe(true);
  });

  const malformed: Array<[string, Behaviour]> = [
    ['a body that is not JSON', status(200, '<html>oops</html>')],
    ['JSON without data', status(200, { result: [] })],
    ['too few embeddings', status(200, { data: [{ index: 0, embedding: [1, 2] }] })],
    [
      'a repeated index',
      status(200, {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 0, embedding: [1, 2] },
        ],
      }),
    ],
    [
      'vectors of different dimensions',
      status(200, {
        data: [
          { index: 0, embedding: [1, 2] },
          { index: 1, embedding: [1, 2, 3] },
        ],
      }),
    ],
    [
      'a non-numeric value (NaN sent as a string)',
      status(200, {
        data: [
          { index: 0, embedding: [1, 'NaN'] },
          { index: 1, embedding: [1, 2] },
        ],
      }),
    ],
    [
      'a null value',
      status(200, {
        data: [
          { index: 0, embedding: [1, null] },
          { index: 1, embedding: [1, 2] },
        ],
      }),
    ],
    [
      'an embedding that is an object',
      status(200, {
        data: [
          { index: 0, embedding: { a: 1 } },
          { index: 1, embedding: [1] },
        ],
      }),
    ],
    [
      'Infinity written as a huge literal',
      status(200, '{"data":[{"index":0,"embedding":[1e999,1]},{"index":1,"embedding":[1,2]}]}'),
    ],
  ];
  it.each(malformed)('rejects %s with a non-retryable EMBEDDER_ERROR', async (_name, behaviour) => {
    server.script(behaviour);
    const error = await failure(embedderFor().embed(['a', 'b']));
    expect(error.code).toBe('EMBEDDER_ERROR');
    expect(error.isRetryable).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('checks the declared dimension, and keeps the learned one', async () => {
    server.script(ok(8));
    const declared = await failure(embedderFor({ dim: 16 }).embed(['x']));
    expect(declared.code).toBe('EMBEDDER_ERROR');
    expect(declared.message).toContain('dimension 8');

    const learning = embedderFor();
    await learning.embed(['x']);
    expect(learning.dim).toBe(8);
    server.script(ok(4));
    expect((await failure(learning.embed(['y']))).code).toBe('EMBEDDER_ERROR');
  });

  it('accepts base64-encoded float32 embeddings', async () => {
    const floats = Float32Array.of(0.5, -1.25, 3);
    server.script(status(200, { data: [{ index: 0, embedding: Buffer.from(floats.buffer).toString('base64') }] }));
    const [v] = await embedderFor().embed(['x']);
    expect(Array.from(v ?? [])).toEqual([0.5, -1.25, 3]);
  });

  it('stops when the caller aborts, without retrying', async () => {
    server.script(hang);
    const controller = new AbortController();
    const pending = embedderFor({ timeoutMs: 10_000 }).embed(['x'], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
    expect(server.requests).toHaveLength(1);
  });

  it('uses an injected fetch', async () => {
    const seen: string[] = [];
    const e = embedderFor({
      fetch: (input, init) => {
        seen.push(String(input));
        return fetch(input, init);
      },
    });
    await e.embed(['x']);
    expect(seen).toEqual([`${server.baseURL}/embeddings`]);
  });

  it('rejects a missing baseURL or model with CONFIG_ERROR', () => {
    expect(() => createOpenAICompatibleEmbedder({ baseURL: '', model: 'm' })).toThrow(
      expect.objectContaining({ code: 'CONFIG_ERROR' }),
    );
  });
});

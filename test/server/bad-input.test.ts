import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerLogger } from '../../src/server/server-logger.js';
import { startHarness, type Harness } from './server-harness.js';

const logLines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, callback) {
    for (const line of chunk.toString('utf8').split('\n'))
      if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
    callback();
  },
});

let h: Harness;
let key: string;
const MAX_BODY = 64 * 1024;

beforeAll(async () => {
  h = await startHarness({
    limits: { maxBodyBytes: MAX_BODY, maxBatch: 10 },
    headersTimeoutMs: 500,
    requestTimeoutMs: 1_000,
    timeoutCheckIntervalMs: 100,
    logger: createServerLogger({ destination: sink, level: 'info' }),
  });
  key = h.key({ tenant: 'acme' });
});
afterAll(async () => h?.close());

async function total(): Promise<number> {
  return (await h.engram.stats({ scope: { tenant: 'acme' }, statuses: ['activated', 'archived', 'deleted'] })).total;
}

async function expectError(
  method: string,
  path: string,
  init: { body?: unknown; raw?: string },
  status: number,
  code: string,
) {
  const r = await h.request(method, path, { key, ...init });
  expect(r.status, r.text.slice(0, 300)).toBe(status);
  expect(r.json.error?.code, r.text.slice(0, 300)).toBe(code);
  expect(typeof r.json.error?.message).toBe('string');
  expect(typeof r.json.error?.details).toBe('object');
  return r;
}

describe('malformed and hostile bodies never cause a 500', () => {
  it('malformed JSON, empty and non-object bodies are 400 INVALID_INPUT', async () => {
    for (const raw of [
      '{',
      '{"memory": {"text": "x"}',
      'not json',
      '',
      '   ',
      '[]',
      '"text"',
      '42',
      'null',
      '{"memory": {"text": "x"}}}',
      '\u0000\u0001',
    ]) {
      await expectError('POST', '/v1/memories', { raw }, 400, 'INVALID_INPUT');
    }
    expect(await total()).toBe(0);
  });

  it('wrong types and unknown fields are rejected with the field named', async () => {
    const r1 = await expectError('POST', '/v1/memories', { body: { memory: { text: 5 } } }, 400, 'INVALID_TEXT');
    expect(r1.json.error?.details.field).toBe('memory.text');
    const r2 = await expectError(
      'POST',
      '/v1/memories',
      { body: { memory: { text: 'x' }, extra: true } },
      400,
      'INVALID_INPUT',
    );
    expect(r2.json.error?.details.field).toBe('extra');
    const r3 = await expectError(
      'POST',
      '/v1/memories',
      { body: { memory: { text: 'x', colour: 'red' } } },
      400,
      'INVALID_INPUT',
    );
    expect(r3.json.error?.details.field).toBe('memory.colour');
    await expectError('POST', '/v1/memories', { body: { memory: { text: 'x', tags: 'a,b' } } }, 400, 'INVALID_INPUT');
    await expectError('POST', '/v1/memories', { body: { memory: { text: 'x', tags: [1, 2] } } }, 400, 'INVALID_INPUT');
    await expectError('POST', '/v1/memories', { body: { memory: { text: 'x', metadata: [1] } } }, 400, 'INVALID_INPUT');
    await expectError(
      'POST',
      '/v1/memories',
      { body: { memory: { text: 'x' }, scope: { planet: 'mars' } } },
      400,
      'INVALID_SCOPE',
    );
    await expectError(
      'POST',
      '/v1/memories',
      { body: { memory: { text: 'x' }, scope: { user: 7 } } },
      400,
      'INVALID_SCOPE',
    );
    await expectError(
      'POST',
      '/v1/memories',
      { body: { memory: { text: 'x' }, scope: { user: 'a\u0007b' } } },
      400,
      'INVALID_SCOPE',
    );
    await expectError(
      'POST',
      '/v1/memories',
      { body: { memory: { text: 'bad \ud800 surrogate' } } },
      400,
      'INVALID_TEXT',
    );
    await expectError('POST', '/v1/memories', { body: { memory: { text: 'nul \u0000 inside' } } }, 400, 'INVALID_TEXT');
    await expectError('POST', '/v1/recall', { body: { query: ['q'] } }, 400, 'INVALID_TEXT');
    await expectError('POST', '/v1/recall', { body: { query: 'q', explain: 'yes' } }, 400, 'INVALID_INPUT');
    await expectError(
      'POST',
      '/v1/inject',
      { body: { provider: 'carrier-pigeon', request: {} } },
      400,
      'INVALID_INPUT',
    );
    await expectError(
      'POST',
      '/v1/inject',
      { body: { provider: 'openai-chat', request: 'hello' } },
      400,
      'INVALID_INPUT',
    );
    await expectError('PATCH', '/v1/memories/x', { body: { text: 'not wrapped in patch' } }, 400, 'INVALID_INPUT');
    await expectError('GET', '/v1/memories?colour=red', {}, 400, 'INVALID_INPUT');
    await expectError('GET', '/v1/memories?types=Nope', {}, 400, 'INVALID_INPUT');
    await expectError('GET', '/v1/memories?order=random', {}, 400, 'INVALID_INPUT');
    expect(await total()).toBe(0);
  });

  it('huge and non-finite numbers are clear 4xx errors', async () => {
    await expectError('POST', '/v1/recall', { raw: '{"query":"q","limit":1e400}' }, 400, 'INVALID_LIMIT');
    await expectError(
      'POST',
      '/v1/recall',
      { raw: '{"query":"q","limit":123456789012345678901234567890}' },
      400,
      'INVALID_LIMIT',
    );
    await expectError('POST', '/v1/recall', { body: { query: 'q', limit: 5000 } }, 400, 'INVALID_LIMIT');
    await expectError('POST', '/v1/recall', { raw: '{"query":"q","threshold":-1e400}' }, 400, 'INVALID_INPUT');
    await expectError('POST', '/v1/recall', { raw: '{"query":"q","lexicalWeight":1e999}' }, 400, 'INVALID_INPUT');
    await expectError('GET', '/v1/memories?limit=99999999999999999999', {}, 400, 'INVALID_LIMIT');
    await expectError('GET', '/v1/memories?limit=-1', {}, 400, 'INVALID_LIMIT');
    await expectError('GET', '/v1/memories?limit=0', {}, 400, 'INVALID_LIMIT');
    await expectError(
      'POST',
      '/v1/memories',
      { raw: '{"memory":{"text":"x","metadata":{"n":1e400}}}' },
      400,
      'INVALID_INPUT',
    );
  });

  it('deep nesting is a 400, at the top level and inside metadata', async () => {
    const depth = 30_000;
    await expectError('POST', '/v1/memories', { raw: '['.repeat(depth) + ']'.repeat(depth) }, 400, 'INVALID_INPUT');
    const nested = '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000);
    await expectError(
      'POST',
      '/v1/memories',
      { raw: `{"memory":{"text":"x","metadata":${nested}}}` },
      400,
      'INVALID_INPUT',
    );
    await expectError(
      'POST',
      '/v1/inject',
      { raw: `{"provider":"openai-chat","request":${nested}}` },
      400,
      'INVALID_INPUT',
    );
    await expectError('POST', '/v1/recall', { raw: `{"query":"q","scope":${nested}}` }, 400, 'INVALID_INPUT');
    const wide = `{"memory":{"text":"x","metadata":{${Array.from({ length: 2000 }, (_, i) => `"k${i}":[[[1]]]`).join(',')}}}}`;
    expect((await h.request('POST', '/v1/memories', { key, raw: wide })).status).toBe(201);
    await h.engram.delete((await h.engram.list({ scope: { tenant: 'acme' } })).items[0]?.id ?? '', {
      scope: { tenant: 'acme' },
    });
    expect(await total()).toBe(0);
    expect((await h.request('GET', '/healthz')).status).toBe(200);
  });

  it('a storm of bad requests in parallel leaves the server healthy', async () => {
    const bodies = ['{', '[]', '{"memory":{"text":1}}', '{"memory":{}}', '{"query":""}', 'x'.repeat(1000)];
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        h.request('POST', i % 2 ? '/v1/memories' : '/v1/recall', { key, raw: bodies[i % bodies.length] }),
      ),
    );
    for (const r of results) {
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    expect((await h.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('limits', () => {
  it('an oversized body is 413 PAYLOAD_TOO_LARGE and nothing is written', async () => {
    const text = 'x'.repeat(MAX_BODY + 10);
    await expectError('POST', '/v1/memories', { body: { memory: { text } } }, 413, 'PAYLOAD_TOO_LARGE');
    // Also without a content-length (chunked upload).
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode('y'.repeat(8192)));
        controller.close();
      },
    });
    const response = await fetch(`${h.url}/v1/memories`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await total()).toBe(0);
  });

  it('a text over the text limit is 413 TEXT_TOO_LONG', async () => {
    const r = await expectError(
      'POST',
      '/v1/memories',
      { body: { memory: { text: 'x'.repeat(40_000) } } },
      413,
      'TEXT_TOO_LONG',
    );
    expect(r.json.error?.details).toMatchObject({ limit: 32_768 });
  });

  it('a batch over the batch limit is 413, a batch with one bad item stores nothing', async () => {
    const memories = Array.from({ length: 11 }, (_, i) => ({ text: `memory ${i}` }));
    const r = await expectError('POST', '/v1/memories/batch', { body: { memories } }, 413, 'PAYLOAD_TOO_LARGE');
    expect(r.json.error?.details).toMatchObject({ limit: 10, got: 11 });
    const bad = [...memories.slice(0, 9), { text: 'ok', type: 'Nope' }];
    await expectError('POST', '/v1/memories/batch', { body: { memories: bad } }, 400, 'INVALID_INPUT');
    await expectError('POST', '/v1/memories/batch', { body: { memories: [] } }, 400, 'INVALID_INPUT');
    const dup = [
      { id: 'same', text: 'a' },
      { id: 'same', text: 'b' },
    ];
    await expectError('POST', '/v1/memories/batch', { body: { memories: dup } }, 409, 'CONFLICT');
    expect(await total()).toBe(0);
    const ok = await h.request<{ memories: unknown[] }>('POST', '/v1/memories/batch', {
      key,
      body: { memories: memories.slice(0, 10) },
    });
    expect(ok.status).toBe(201);
    expect(ok.json.memories).toHaveLength(10);
    expect(await total()).toBe(10);
  });

  it('result sizes are bounded (limit above the maximum is INVALID_LIMIT)', async () => {
    await expectError('GET', '/v1/memories?limit=1001', {}, 400, 'INVALID_LIMIT');
    const page = await h.request<{ items: unknown[] }>('GET', '/v1/memories?limit=1000', { key });
    expect(page.status).toBe(200);
  });
});

describe('slow clients time out', () => {
  const raw = (payload: string, waitMs: number) =>
    new Promise<{ data: string; closed: boolean; ms: number }>((resolve) => {
      const started = Date.now();
      const { port } = new URL(h.url);
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(payload));
      let data = '';
      socket.on('data', (chunk) => (data += chunk.toString()));
      const timer = setTimeout(() => {
        socket.destroy();
        resolve({ data, closed: false, ms: Date.now() - started });
      }, waitMs);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ data, closed: true, ms: Date.now() - started });
      });
      socket.on('error', () => undefined);
    });

  it('drops a client that never finishes its headers', async () => {
    const r = await raw('POST /v1/memories HTTP/1.1\r\nHost: x\r\n', 5_000);
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(3_000);
    expect(r.data).toMatch(/^$|408/);
  });

  it('drops a client that never finishes its body', async () => {
    const r = await raw(
      `POST /v1/memories HTTP/1.1\r\nHost: x\r\nauthorization: Bearer ${key}\r\ncontent-length: 1000\r\n\r\n{"memory":`,
      6_000,
    );
    expect(r.closed).toBe(true);
    expect(r.ms).toBeLessThan(4_000);
    expect(await total()).toBeGreaterThanOrEqual(0);
  });

  it('answers garbage on the wire with 400 and stays up', async () => {
    const r = await raw('GARBAGE\r\n\r\n', 2_000);
    expect(r.data).toContain('400');
    expect((await h.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('errors, ids, logs, metrics, explain and OpenAPI', () => {
  it('unknown routes are JSON 404 NOT_FOUND', async () => {
    await expectError('GET', '/v2/nothing', {}, 404, 'NOT_FOUND');
    await expectError('PUT', '/v1/memories', {}, 404, 'NOT_FOUND');
  });

  it('every response carries a request id; a sane client id is echoed and logged', async () => {
    const r = await h.request('GET', '/v1/memories', { key, headers: { 'x-request-id': 'trace-123' } });
    expect(r.headers.get('x-request-id')).toBe('trace-123');
    const weird = await h.request('GET', '/v1/memories', { key, headers: { 'x-request-id': 'bad id with spaces' } });
    expect(weird.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await expectError(
      'POST',
      '/v1/memories',
      { raw: '{', headers: { 'x-request-id': 'trace-bad' } } as never,
      400,
      'INVALID_INPUT',
    );
    const line = logLines.find((l) => l.reqId === 'trace-123');
    expect(line).toMatchObject({
      reqId: 'trace-123',
      method: 'GET',
      route: '/v1/memories',
      status: 200,
      tenant: 'acme',
      service: 'engram',
    });
    expect(typeof line?.ms).toBe('number');
    const failed = logLines.find((l) => l.status === 400 && l.code === 'INVALID_INPUT');
    expect(failed).toBeDefined();
    expect(JSON.stringify(logLines)).not.toContain(key);
  });

  it('/metrics is Prometheus text with request counts by route', async () => {
    expect(
      (await h.request('POST', '/v1/memories', { key, body: { memory: { text: 'metrics probe memory' } } })).status,
    ).toBe(201);
    await h.request('POST', '/v1/recall', { key, body: { query: 'memory 3' } });
    const r = await h.request('GET', '/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(r.text).toMatch(/engram_http_requests_total\{method="POST",route="\/v1\/recall",status="200"\} \d+/);
    expect(r.text).toContain('engram_http_request_duration_seconds_bucket');
    expect(r.text).toMatch(/engram_recall_stage_duration_seconds_count\{stage="embed"\} [1-9]/);
    expect(r.text).toMatch(/engram_memory_writes_total\{kind="add"\} [1-9]\d*/);
  });

  it('explain returns per-stage timings and a Server-Timing header', async () => {
    const r = await h.request<{ timings: Record<string, number>; server?: Record<string, number> }>(
      'POST',
      '/v1/recall',
      {
        key,
        body: { query: 'memory 3', explain: true },
      },
    );
    expect(Object.keys(r.json.timings).sort()).toEqual(['denseMs', 'embedMs', 'lexicalMs', 'rankMs', 'totalMs']);
    expect(r.json.server?.recallMs).toBeGreaterThan(0);
    expect(r.json.server?.totalMs).toBeGreaterThanOrEqual(r.json.server?.recallMs ?? 0);
    expect(r.headers.get('server-timing')).toMatch(/embed;dur=[\d.]+.*dense;dur=/);
    const plain = await h.request<{ server?: unknown }>('POST', '/v1/recall', { key, body: { query: 'memory 3' } });
    expect(plain.json.server).toBeUndefined();
    expect(plain.headers.get('server-timing')).toBeNull();
  });

  it('/v1/search runs the searcher and returns its plan and per-stage timings', async () => {
    await h.request('POST', '/v1/memories', { key, body: { memory: { text: 'search probe memory 3' } } });
    const r = await h.request<{
      hits: Array<{ memory: { id: string }; relevance: number }>;
      plan: { mode: string };
      timings: Record<string, unknown>;
    }>('POST', '/v1/search', { key, body: { query: 'memory 3', topK: 3, threshold: -1 } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.hits.length).toBeGreaterThan(0);
    expect(r.json.plan.mode).toBe('fast');
    for (const stage of ['planMs', 'embedMs', 'pathsMs', 'postMs', 'totalMs'])
      expect(typeof r.json.timings[stage]).toBe('number');
    await expectError('POST', '/v1/search', { body: { query: '' } }, 400, 'INVALID_TEXT');
    await expectError('POST', '/v1/search', { body: { query: 'q', mode: 'psychic' } }, 400, 'INVALID_INPUT');
    await expectError('POST', '/v1/search', { body: { query: 'q', topK: 0 } }, 400, 'INVALID_LIMIT');
    await expectError('POST', '/v1/search', { body: { query: 'q', limit: 5 } }, 400, 'INVALID_INPUT');
    const unknown = await expectError(
      'POST',
      '/v1/search',
      { body: { query: 'q', reranker: 'nope' } },
      400,
      'INVALID_INPUT',
    );
    expect(unknown.json.error?.details.available).toContain('cosine-local');
    const reranked = await h.request('POST', '/v1/search', {
      key,
      body: { query: 'memory 3', reranker: 'cosine-local' },
    });
    expect(reranked.status).toBe(200);
  });

  it('health and readiness', async () => {
    expect((await h.request('GET', '/healthz')).json).toEqual({ status: 'ok' });
    expect((await h.request('GET', '/readyz')).json).toEqual({ status: 'ready' });
  });

  it('serves an OpenAPI 3.1 document generated from the validation schemas', async () => {
    const r = await h.request<{
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: Array<{ name: string }> }>>;
      components: {
        schemas: Record<
          string,
          { additionalProperties?: unknown; properties?: Record<string, unknown>; required?: string[] }
        >;
      };
    }>('GET', '/openapi.json');
    expect(r.json.openapi).toBe('3.1.0');
    expect(Object.keys(r.json.paths).sort()).toEqual(
      [
        '/healthz',
        '/mcp',
        '/metrics',
        '/readyz',
        '/v1/formation/jobs',
        '/v1/formation/jobs/{id}/requeue',
        '/v1/formation/status',
        '/v1/inject',
        '/v1/memories',
        '/v1/memories/batch',
        '/v1/memories/{id}',
        '/v1/memories/{id}/history',
        '/v1/recall',
        '/v1/remember',
        '/v1/search',
        '/v1/stats',
      ].sort(),
    );
    expect(r.json.components.schemas.RememberRequest?.additionalProperties).toBe(false);
    expect(r.json.components.schemas.Turn?.required).toEqual(['role']);
    expect(Object.keys(r.json.paths['/v1/memories/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    const input = r.json.components.schemas.MemoryInput;
    expect(input?.additionalProperties).toBe(false);
    expect(input?.required).toEqual(['text']);
    expect(Object.keys(input?.properties ?? {})).toContain('metadata');
    expect(r.json.components.schemas.RecallRequest?.additionalProperties).toBe(false);
    expect(r.json.paths['/v1/memories']?.get?.parameters?.map((p) => p.name)).toContain('cursor');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { isEngramError } from '../../src/model/errors.js';
import { applyBoost } from '../../src/search/rank/boost.js';
import { createCosineLocalReranker } from '../../src/search/rank/cosine-local-reranker.js';
import { createHttpReranker, parseRerankResponse } from '../../src/search/rank/http-reranker.js';
import { noopReranker } from '../../src/search/rank/noop-reranker.js';
import { rerankDocuments } from '../../src/search/rank/rerank-documents.js';
import type { RerankCandidate } from '../../src/search/rank/reranker.js';
import { RerankerRegistry } from '../../src/search/rank/reranker-registry.js';
import { startLocalServer, type LocalHttpServer, type ReceivedRequest } from '../support/local-http-server.js';
import { memory } from '../support/memory-fixture.js';

const servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const candidates: RerankCandidate[] = [
  { memory: memory('a', 'the cat sat', { level: 'topic' }), score: 0.9, cosine: 0.5 },
  { memory: memory('b', 'dogs bark at night', { level: 'fact' }), score: 0.8, cosine: 0.6 },
  { memory: memory('c', 'cats purr', { level: 'concept' }), score: 0.7, cosine: 0.55 },
];

/** A cross-encoder stand-in that scores by shared words with the query — a real server speaking each API. */
function overlapScore(query: string, doc: string): number {
  const q = new Set(query.toLowerCase().split(/\W+/).filter(Boolean));
  const words = doc.toLowerCase().split(/\W+/).filter(Boolean);
  return words.filter((w) => q.has(w)).length / Math.max(1, words.length);
}

async function rerankServer(shape: 'tei' | 'jina' | 'cohere' | 'bge-data', delayMs = 0): Promise<LocalHttpServer> {
  const server = await startLocalServer((req: ReceivedRequest) => {
    const body = req.body as { query: string; texts?: string[]; documents?: string[] };
    const docs = body.texts ?? body.documents ?? [];
    const scored = docs.map((d, index) => ({ index, score: overlapScore(body.query, d) }));
    if (shape === 'tei') return { json: [...scored].sort((a, b) => b.score - a.score), delayMs };
    if (shape === 'bge-data') return { json: { data: scored.map((s) => ({ score: s.score })) }, delayMs };
    return {
      json: { id: 'r1', results: [...scored].sort((a, b) => b.score - a.score).map((s) => ({ index: s.index, relevance_score: s.score })) },
      delayMs,
    };
  });
  servers.push(server);
  return server;
}

describe('noop and cosine-local', () => {
  it('noop keeps order and scores', async () => {
    expect(await noopReranker.rerank({ query: 'q', candidates, topK: 2 })).toEqual([
      { index: 0, score: 0.9 },
      { index: 1, score: 0.8 },
    ]);
  });

  it('cosine-local multiplies cosine by the level weight', async () => {
    const reranker = createCosineLocalReranker({ levelWeights: { topic: 2, concept: 1, fact: 0.5 } });
    expect(await reranker.rerank({ query: 'q', candidates, topK: 3 })).toEqual([
      { index: 0, score: 1 },
      { index: 2, score: 0.55 },
      { index: 1, score: 0.3 },
    ]);
  });
});

describe('http reranker', () => {
  for (const api of ['tei', 'jina', 'cohere'] as const) {
    it(`speaks the ${api} request and response shape`, async () => {
      const server = await rerankServer(api);
      const reranker = createHttpReranker({ url: `${server.url}/rerank`, api, model: 'bge-reranker-v2-m3', apiKey: 'k' });
      const out = await reranker.rerank({ query: 'cats purr', candidates, topK: 2 });
      expect(out.map((o) => o.index)).toEqual([2, 0]);
      expect(out[0]?.score).toBeCloseTo(1);
      const body = server.requests[0]?.body as Record<string, unknown>;
      if (api === 'tei') expect(body).toMatchObject({ query: 'cats purr', texts: ['the cat sat', 'dogs bark at night', 'cats purr'] });
      else expect(body).toMatchObject({ model: 'bge-reranker-v2-m3', query: 'cats purr', documents: ['the cat sat', 'dogs bark at night', 'cats purr'], top_n: 3 });
      expect(server.requests[0]?.headers.authorization).toBe('Bearer k');
    });
  }

  it('accepts the {data:[{score}]} shape', async () => {
    const server = await rerankServer('bge-data');
    const reranker = createHttpReranker({ url: server.url, api: 'bge' });
    expect((await reranker.rerank({ query: 'dogs bark', candidates, topK: 1 }))[0]?.index).toBe(1);
  });

  it('falls back to the incoming order with score 0 on timeout, and reports it', async () => {
    const server = await rerankServer('jina', 2_000);
    const seen: unknown[] = [];
    const reranker = createHttpReranker({ url: server.url, api: 'jina', timeoutMs: 100, onFallback: (e) => seen.push(e) });
    const started = Date.now();
    expect(await reranker.rerank({ query: 'cats purr', candidates, topK: 2 })).toEqual([
      { index: 0, score: 0 },
      { index: 1, score: 0 },
    ]);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(isEngramError(seen[0], 'TIMEOUT')).toBe(true);
  });

  it('scores a memory by its best single-turn pair', async () => {
    const server = await rerankServer('cohere');
    const withTurns = memory('t', 'summary of a chat', {
      sources: [
        { type: 'chat', role: 'user', content: 'where is my passport' },
        { type: 'chat', role: 'assistant', content: 'in the drawer' },
        { type: 'chat', role: 'user', content: 'unrelated words here' },
      ],
    });
    const reranker = createHttpReranker({ url: server.url, api: 'cohere', strategy: 'single-turn' });
    const out = await reranker.rerank({ query: 'passport drawer', candidates: [candidates[1] as RerankCandidate, { memory: withTurns, score: 0.1, cosine: 0 }], topK: 2 });
    expect(out[0]?.index).toBe(1);
    const docs = (server.requests[0]?.body as { documents: string[] }).documents;
    expect(docs).toEqual(['dogs bark at night', 'user: where is my passport\nassistant: in the drawer', 'user: unrelated words here']);
  });

  it('parses the response shapes and rejects items without a score', () => {
    expect(parseRerankResponse({ results: [{ index: 1, score: 0.2 }] })).toEqual([{ index: 1, score: 0.2 }]);
    expect(parseRerankResponse({ data: [{ score: 0.3 }, { score: 0.1 }] })).toEqual([
      { index: 0, score: 0.3 },
      { index: 1, score: 0.1 },
    ]);
    expect(() => parseRerankResponse({ results: [{ index: 0 }] })).toThrow(/without a score/);
    expect(() => parseRerankResponse({ nope: 1 })).toThrow(/no results/);
  });
});

describe('document strategies', () => {
  it('builds memory + background and memory + document sources', () => {
    const m = memory('x', 'Fact.', {
      background: 'Said during the 2024 offsite.',
      sources: [{ type: 'doc', title: 'Handbook', content: 'Section 3' }, { type: 'chat', content: 'hi' }],
    });
    expect(rerankDocuments(m, 'background')).toEqual(['Fact.\nSaid during the 2024 offsite.']);
    expect(rerankDocuments(m, 'doc-source')).toEqual(['Fact.\nHandbook: Section 3']);
    expect(rerankDocuments(memory('y', 'plain'), 'single-turn')).toEqual(['plain']);
  });
});

describe('boost', () => {
  it('multiplies by (1 + w) per match and clips to [0, 1]', () => {
    const m = memory('b', 't', { scope: { tenant: 't', user: 'u1', session: 's1' }, tags: ['work'] });
    expect(applyBoost(0.4, m, { userId: 'u1' })).toEqual({ score: 0.4 * 1.5, factor: 1.5 });
    expect(applyBoost(0.4, m, { sessionId: 's1' }).score).toBeCloseTo(0.52);
    expect(applyBoost(0.4, m, { tags: ['work'] }).score).toBeCloseTo(0.48);
    expect(applyBoost(0.9, m, { userId: 'u1', sessionId: 's1', tags: ['work'] }).score).toBe(1);
    expect(applyBoost(0.4, m, { userId: 'other' }).score).toBe(0.4);
    expect(applyBoost(-0.2, m, undefined).score).toBe(0);
  });
});

describe('registry', () => {
  it('resolves by name and lists the available names on a miss', () => {
    const registry = new RerankerRegistry([createHttpReranker({ url: 'http://127.0.0.1:9' })]);
    expect(registry.get('cosine-local').name).toBe('cosine-local');
    expect(registry.names()).toEqual(['cosine-local', 'http', 'noop']);
    let error: unknown;
    try {
      registry.get('bge');
    } catch (e) {
      error = e;
    }
    expect(isEngramError(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toContain('cosine-local, http, noop');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { isEngramError } from '../../src/model/errors.js';
import { createBraveSearch } from '../../src/search/internet/brave-search.js';
import { createSearxngSearch } from '../../src/search/internet/searxng-search.js';
import { createTavilySearch } from '../../src/search/internet/tavily-search.js';
import { webResultToMemory } from '../../src/search/internet/web-to-memory.js';
import { startLocalServer, type CannedReply, type LocalHttpServer } from '../support/local-http-server.js';

const servers: LocalHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(reply: CannedReply): Promise<LocalHttpServer> {
  const server = await startLocalServer(() => reply);
  servers.push(server);
  return server;
}

describe('web search providers', () => {
  it('SearXNG: GET /search?format=json', async () => {
    const server = await serve({
      json: {
        query: 'node 20 release',
        number_of_results: 2,
        results: [
          { url: 'https://nodejs.org/en/blog/release/v20.0.0', title: 'Node.js 20 is now available!', content: 'Node 20 ships...', engine: 'duckduckgo', publishedDate: '2023-04-18T00:00:00' },
          { title: 'no url' },
          { url: 'https://example.org', title: 'Example', content: 'ex' },
        ],
      },
    });
    const results = await createSearxngSearch({ baseUrl: `${server.url}/` }).search({ query: 'node 20 release', limit: 5 });
    expect(results).toEqual([
      { title: 'Node.js 20 is now available!', url: 'https://nodejs.org/en/blog/release/v20.0.0', summary: 'Node 20 ships...', date: '2023-04-18T00:00:00', provider: 'searxng' },
      { title: 'Example', url: 'https://example.org', summary: 'ex', date: null, provider: 'searxng' },
    ]);
    const url = new URL(server.requests[0]?.url ?? '', server.url);
    expect(server.requests[0]?.method).toBe('GET');
    expect(url.pathname).toBe('/search');
    expect(url.searchParams.get('q')).toBe('node 20 release');
    expect(url.searchParams.get('format')).toBe('json');
  });

  it('Tavily: POST /search with a bearer key', async () => {
    const server = await serve({
      json: { query: 'q', results: [{ title: 'T', url: 'https://t.example', content: 'summary', score: 0.9, published_date: 'Mon, 01 Jan 2024 00:00:00 GMT' }], response_time: 0.5 },
    });
    const results = await createTavilySearch({ apiKey: 'tvly-1', baseUrl: server.url }).search({ query: 'q', limit: 3 });
    expect(results).toEqual([{ title: 'T', url: 'https://t.example', summary: 'summary', date: 'Mon, 01 Jan 2024 00:00:00 GMT', provider: 'tavily' }]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer tvly-1');
    expect(server.requests[0]?.body).toMatchObject({ query: 'q', max_results: 3, search_depth: 'basic' });
  });

  it('Brave: GET /res/v1/web/search with X-Subscription-Token', async () => {
    const server = await serve({
      json: { type: 'search', web: { type: 'search', results: [{ title: 'B', url: 'https://b.example', description: 'a <strong>bold</strong> claim', page_age: '2024-05-01T10:00:00' }] } },
    });
    const results = await createBraveSearch({ apiKey: 'bk', baseUrl: server.url }).search({ query: 'bold claim' });
    expect(results).toEqual([{ title: 'B', url: 'https://b.example', summary: 'a bold claim', date: '2024-05-01T10:00:00', provider: 'brave' }]);
    expect(server.requests[0]?.headers['x-subscription-token']).toBe('bk');
    expect(server.requests[0]?.url).toContain('/res/v1/web/search?q=bold+claim&count=10');
  });

  it('a failing provider rejects with an EngramError', async () => {
    const server = await serve({ status: 401, json: { error: 'bad key' } });
    await expect(createTavilySearch({ apiKey: 'x', baseUrl: server.url }).search({ query: 'q' })).rejects.toSatisfy((e: unknown) => isEngramError(e, 'UNAUTHORIZED'));
  });
});

describe('webResultToMemory', () => {
  it('turns a result into an OuterMemory with title, url, date and summary', () => {
    const m = webResultToMemory(
      { title: 'T', url: 'https://t.example/a', summary: 'S', date: '2024-01-02', provider: 'tavily' },
      { tenant: 'acme' },
      '2026-01-01T00:00:00.000Z',
    );
    expect(m).toMatchObject({
      type: 'OuterMemory',
      text: 'T: S',
      statedAt: '2024-01-02T00:00:00.000Z',
      sources: [{ type: 'web', url: 'https://t.example/a', title: 'T', content: 'S' }],
      metadata: { url: 'https://t.example/a', title: 'T', date: '2024-01-02', provider: 'tavily' },
    });
    expect(m.id).toMatch(/^web:[0-9a-f]{24}$/);
  });
});

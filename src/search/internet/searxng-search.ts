import { asObject, postJson, type HttpClientOptions } from '../../llm/http-json.js';
import type { WebResult, WebSearchProvider, WebSearchRequest } from './web-result.js';

/** Options of {@link createSearxngSearch}. */
export interface SearxngOptions extends HttpClientOptions {
  /** Instance base URL, e.g. `http://localhost:8888` (the JSON format must be enabled). */
  baseUrl: string;
  /** @default 'en' */
  language?: string | undefined;
  /** @default 10000 */
  timeoutMs?: number | undefined;
}

/** SearXNG's JSON API: `GET {baseUrl}/search?q=…&format=json` → `{results:[{title, url, content, publishedDate}]}`. */
export function createSearxngSearch(options: SearxngOptions): WebSearchProvider {
  return {
    name: 'searxng',
    async search(request: WebSearchRequest): Promise<WebResult[]> {
      const url = new URL(`${options.baseUrl.replace(/\/+$/, '')}/search`);
      url.searchParams.set('q', request.query);
      url.searchParams.set('format', 'json');
      url.searchParams.set('language', options.language ?? 'en');
      const json = asObject(
        await postJson({ ...options, timeoutMs: options.timeoutMs ?? 10_000, method: 'GET', url: url.toString(), body: undefined, service: 'searxng', signal: request.signal }),
      );
      const results = Array.isArray(json?.results) ? json.results : [];
      return results
        .map((r) => asObject(r))
        .filter((r): r is Record<string, unknown> => typeof r?.url === 'string')
        .slice(0, request.limit ?? 10)
        .map((r) => ({
          title: typeof r.title === 'string' ? r.title : '',
          url: r.url as string,
          summary: typeof r.content === 'string' ? r.content : '',
          date: typeof r.publishedDate === 'string' ? r.publishedDate : null,
          provider: 'searxng',
        }));
    },
  };
}

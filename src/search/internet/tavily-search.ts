import { asObject, postJson, type HttpClientOptions } from '../../llm/http-json.js';
import type { WebResult, WebSearchProvider, WebSearchRequest } from './web-result.js';

/** Options of {@link createTavilySearch}. */
export interface TavilyOptions extends HttpClientOptions {
  apiKey: string;
  /** @default 'https://api.tavily.com' */
  baseUrl?: string | undefined;
  /** @default 'basic' */
  searchDepth?: 'basic' | 'advanced' | undefined;
  /** @default 10000 */
  timeoutMs?: number | undefined;
}

/** Tavily: `POST /search` `{query, max_results, search_depth}` (Bearer key) → `{results:[{title, url, content, published_date}]}`. */
export function createTavilySearch(options: TavilyOptions): WebSearchProvider {
  const url = `${(options.baseUrl ?? 'https://api.tavily.com').replace(/\/+$/, '')}/search`;
  return {
    name: 'tavily',
    async search(request: WebSearchRequest): Promise<WebResult[]> {
      const json = asObject(
        await postJson({
          ...options,
          timeoutMs: options.timeoutMs ?? 10_000,
          url,
          headers: { authorization: `Bearer ${options.apiKey}` },
          body: { query: request.query, max_results: request.limit ?? 10, search_depth: options.searchDepth ?? 'basic' },
          service: 'tavily',
          signal: request.signal,
        }),
      );
      const results = Array.isArray(json?.results) ? json.results : [];
      return results
        .map((r) => asObject(r))
        .filter((r): r is Record<string, unknown> => typeof r?.url === 'string')
        .map((r) => ({
          title: typeof r.title === 'string' ? r.title : '',
          url: r.url as string,
          summary: typeof r.content === 'string' ? r.content : '',
          date: typeof r.published_date === 'string' ? r.published_date : null,
          provider: 'tavily',
        }));
    },
  };
}

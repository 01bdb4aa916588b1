import { asObject, postJson, type HttpClientOptions } from '../../llm/http-json.js';
import type { WebResult, WebSearchProvider, WebSearchRequest } from './web-result.js';

/** Options of {@link createBraveSearch}. */
export interface BraveOptions extends HttpClientOptions {
  apiKey: string;
  /** @default 'https://api.search.brave.com' */
  baseUrl?: string | undefined;
  /** @default 10000 */
  timeoutMs?: number | undefined;
}

/**
 * Brave Search: `GET /res/v1/web/search?q=…&count=…` with `X-Subscription-Token` →
 * `{web:{results:[{title, url, description, page_age | age}]}}`.
 */
export function createBraveSearch(options: BraveOptions): WebSearchProvider {
  return {
    name: 'brave',
    async search(request: WebSearchRequest): Promise<WebResult[]> {
      const url = new URL(`${(options.baseUrl ?? 'https://api.search.brave.com').replace(/\/+$/, '')}/res/v1/web/search`);
      url.searchParams.set('q', request.query);
      url.searchParams.set('count', String(Math.min(20, request.limit ?? 10)));
      const json = asObject(
        await postJson({
          ...options,
          timeoutMs: options.timeoutMs ?? 10_000,
          method: 'GET',
          url: url.toString(),
          headers: { 'x-subscription-token': options.apiKey },
          body: undefined,
          service: 'brave',
          signal: request.signal,
        }),
      );
      const web = asObject(json?.web);
      const results = Array.isArray(web?.results) ? web.results : [];
      return results
        .map((r) => asObject(r))
        .filter((r): r is Record<string, unknown> => typeof r?.url === 'string')
        .map((r) => ({
          title: typeof r.title === 'string' ? r.title : '',
          url: r.url as string,
          summary: typeof r.description === 'string' ? r.description.replace(/<\/?strong>/g, '') : '',
          date: typeof r.page_age === 'string' ? r.page_age : typeof r.age === 'string' ? r.age : null,
          provider: 'brave',
        }));
    },
  };
}

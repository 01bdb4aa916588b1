/** One web search result, provider-neutral. */
export interface WebResult {
  title: string;
  url: string;
  /** Snippet or summary text. */
  summary: string;
  /** Publication date as given by the provider (ISO or free text), or null. */
  date: string | null;
  /** Provider that returned it, e.g. `searxng`. */
  provider: string;
}

/** Options of one web search. */
export interface WebSearchRequest {
  query: string;
  /** @default 10 */
  limit?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** A web search provider. Rejects with an EngramError on failure. */
export interface WebSearchProvider {
  readonly name: string;
  search(request: WebSearchRequest): Promise<WebResult[]>;
}

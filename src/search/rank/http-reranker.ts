import { asObject, postJson, type HttpClientOptions } from '../../llm/http-json.js';
import { EngramError } from '../../model/errors.js';
import { rerankDocuments, type DocumentStrategy } from './rerank-documents.js';
import type { Reranker, RerankRequest, RerankScore } from './reranker.js';

/**
 * Wire format of the rerank service:
 * - `tei`: Hugging Face text-embeddings-inference, `POST {url}` `{query, texts}` → `[{index, score}]`;
 * - `bge`: a BGE cross-encoder service, `{model, query, documents}` → `{results:[{index, relevance_score|score}]}` or `{data:[{score}]}`;
 * - `jina`: `POST https://api.jina.ai/v1/rerank` `{model, query, documents, top_n}` → `{results:[{index, relevance_score}]}`;
 * - `cohere`: `POST https://api.cohere.com/v2/rerank` `{model, query, documents, top_n}` → `{results:[{index, relevance_score}]}`.
 */
export type RerankApi = 'tei' | 'bge' | 'jina' | 'cohere';

/** Options of {@link createHttpReranker}. */
export interface HttpRerankerOptions extends HttpClientOptions {
  /** Full endpoint URL, e.g. `http://localhost:8080/rerank`. */
  url: string;
  /** @default 'bge' */
  api?: RerankApi | undefined;
  /** Model name sent to services that take one. */
  model?: string | undefined;
  /** Sent as `Authorization: Bearer …`. */
  apiKey?: string | undefined;
  /** @default 'memory' */
  strategy?: DocumentStrategy | undefined;
  /** A rerank that takes longer falls back to the incoming order. @default 5000 */
  timeoutMs?: number | undefined;
  /** @default 0 (a slow reranker should degrade, not stall the search) */
  retries?: number | undefined;
  /** Told about each degradation (timeout, HTTP error, bad answer). */
  onFallback?: ((error: unknown) => void) | undefined;
}

/** Parses every supported response shape into (document index, score) pairs. */
export function parseRerankResponse(json: unknown): Array<{ index: number; score: number }> {
  const read = (item: unknown, position: number): { index: number; score: number } | undefined => {
    const o = asObject(item);
    if (!o) return undefined;
    const score = typeof o.relevance_score === 'number' ? o.relevance_score : typeof o.score === 'number' ? o.score : undefined;
    const index = typeof o.index === 'number' ? o.index : position;
    return score === undefined ? undefined : { index, score };
  };
  const list = Array.isArray(json) ? json : (asObject(json)?.results ?? asObject(json)?.data);
  if (!Array.isArray(list)) throw new EngramError('LLM_ERROR', 'rerank answer has no results/data list');
  const out = list.map(read);
  if (out.some((x) => x === undefined)) throw new EngramError('LLM_ERROR', 'rerank answer has an item without a score');
  return out as Array<{ index: number; score: number }>;
}

/**
 * `http`: a cross-encoder rerank service (TEI / BGE, Jina, Cohere shapes). Each memory becomes one
 * or more documents by the document strategy; its score is its best document's. On timeout or any
 * error it returns the incoming order with score 0 and reports through `onFallback` — a rerank
 * outage never fails a search.
 */
export function createHttpReranker(options: HttpRerankerOptions): Reranker {
  const api = options.api ?? 'bge';
  const strategy = options.strategy ?? 'memory';
  return {
    name: 'http',
    async rerank(request: RerankRequest): Promise<RerankScore[]> {
      if (request.candidates.length === 0) return [];
      const documents: string[] = [];
      const owner: number[] = [];
      request.candidates.forEach((c, i) => {
        for (const doc of rerankDocuments(c.memory, strategy)) {
          documents.push(doc);
          owner.push(i);
        }
      });
      const body: Record<string, unknown> =
        api === 'tei'
          ? { query: request.query, texts: documents, truncate: true }
          : { model: options.model, query: request.query, documents, ...(api === 'bge' ? {} : { top_n: documents.length }) };
      const headers: Record<string, string> = {};
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      try {
        const json = await postJson({
          ...options,
          timeoutMs: options.timeoutMs ?? 5_000,
          retries: options.retries ?? 0,
          url: options.url,
          headers,
          body,
          service: `${api} rerank`,
          signal: request.signal,
        });
        const best = new Map<number, number>();
        for (const { index, score } of parseRerankResponse(json)) {
          const i = owner[index];
          if (i === undefined) continue;
          best.set(i, Math.max(best.get(i) ?? -Infinity, score));
        }
        return request.candidates
          .map((_, index) => ({ index, score: best.get(index) ?? 0 }))
          .sort((a, b) => b.score - a.score || a.index - b.index)
          .slice(0, request.topK);
      } catch (error: unknown) {
        options.onFallback?.(error);
        return request.candidates.slice(0, request.topK).map((_, index) => ({ index, score: 0 }));
      }
    },
  };
}

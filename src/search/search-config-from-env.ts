import { resolveChatModel } from '../llm/resolve-chat-model.js';
import type { ChatModel } from '../llm/chat-model.js';
import { createBraveSearch } from './internet/brave-search.js';
import { createSearxngSearch } from './internet/searxng-search.js';
import { createTavilySearch } from './internet/tavily-search.js';
import type { WebSearchProvider } from './internet/web-result.js';
import { createHttpReranker, type RerankApi } from './rank/http-reranker.js';
import { DOCUMENT_STRATEGIES, type DocumentStrategy } from './rank/rerank-documents.js';
import type { Reranker } from './rank/reranker.js';
import { EngramError } from '../model/errors.js';

/** What {@link searchConfigFromEnv} builds: the `search` option of `Engram.open`. */
export interface EnvSearchConfig {
  llm?: ChatModel | undefined;
  web?: WebSearchProvider[] | undefined;
  rerankers?: Reranker[] | undefined;
}

/**
 * The searcher's optional parts from the environment (for the CLI and server):
 * - `ENGRAM_LLM` = `provider:model` (+ `ENGRAM_LLM_BASE_URL`, `ENGRAM_LLM_API_KEY`, `OPENAI_API_KEY`, `ANTHROPIC_API_KEY`);
 * - `ENGRAM_SEARXNG_URL`, `TAVILY_API_KEY`, `BRAVE_API_KEY` → web providers;
 * - `ENGRAM_RERANK_URL` (+ `ENGRAM_RERANK_API` tei|bge|jina|cohere @default bge, `ENGRAM_RERANK_MODEL`,
 *   `ENGRAM_RERANK_API_KEY`, `ENGRAM_RERANK_STRATEGY` memory|single-turn|background|doc-source) → the `http` reranker.
 * Unset variables leave the part out.
 */
export function searchConfigFromEnv(env: Record<string, string | undefined> = process.env): EnvSearchConfig {
  const config: EnvSearchConfig = {};
  if (env.ENGRAM_LLM) config.llm = resolveChatModel(env.ENGRAM_LLM, { env });
  const web: WebSearchProvider[] = [];
  if (env.ENGRAM_SEARXNG_URL) web.push(createSearxngSearch({ baseUrl: env.ENGRAM_SEARXNG_URL }));
  if (env.TAVILY_API_KEY) web.push(createTavilySearch({ apiKey: env.TAVILY_API_KEY }));
  if (env.BRAVE_API_KEY) web.push(createBraveSearch({ apiKey: env.BRAVE_API_KEY }));
  if (web.length > 0) config.web = web;
  if (env.ENGRAM_RERANK_URL) {
    const api = (env.ENGRAM_RERANK_API ?? 'bge') as RerankApi;
    if (!['tei', 'bge', 'jina', 'cohere'].includes(api)) {
      throw new EngramError('CONFIG_ERROR', 'ENGRAM_RERANK_API must be one of: tei, bge, jina, cohere', { details: { api } });
    }
    const strategy = (env.ENGRAM_RERANK_STRATEGY ?? 'memory') as DocumentStrategy;
    if (!DOCUMENT_STRATEGIES.includes(strategy)) {
      throw new EngramError('CONFIG_ERROR', `ENGRAM_RERANK_STRATEGY must be one of: ${DOCUMENT_STRATEGIES.join(', ')}`, { details: { strategy } });
    }
    config.rerankers = [
      createHttpReranker({ url: env.ENGRAM_RERANK_URL, api, model: env.ENGRAM_RERANK_MODEL, apiKey: env.ENGRAM_RERANK_API_KEY, strategy }),
    ];
  }
  return config;
}

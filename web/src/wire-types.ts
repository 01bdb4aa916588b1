/** Shapes of the `/v1` API responses the inspector reads (a subset of the OpenAPI document). */

// The server's own vocabulary and shapes: one source for what the API accepts and returns.
import { MEMORY_TYPES, type MemoryType } from '../../src/model/memory-type.js';
import { PROVIDER_NAMES, type ProviderName } from '../../src/model/provider-name.js';
import type { Memory, MemorySource } from '../../src/model/memory.js';
import type { Scope } from '../../src/model/scope.js';
import type { Hit } from '../../src/model/hit.js';
import type { RecallResult } from '../../src/model/api.js';
import type { SearchHit, SearchPlan, SearchResult } from '../../src/model/search-result.js';
import type { WireSearchOptions } from '../../src/model/request-fields.js';
import type { HistoryEvent } from '../../src/model/formation/history.js';

export {
  MEMORY_TYPES,
  PROVIDER_NAMES as PROVIDERS,
  type Memory,
  type MemorySource,
  type MemoryType,
  type Scope,
  type SearchHit,
  type SearchPlan,
};
export type Provider = ProviderName;

/** Narrowing sent with requests; the tenant always comes from the key. */
export type RequestScope = Omit<Scope, 'tenant'>;

export interface Page {
  items: Memory[];
  nextCursor: string | null;
}

export type { HistoryEvent };

/** `GET /v1/memories/{id}/history`. */
export interface HistoryPage {
  items: HistoryEvent[];
  nextCursor: string | null;
}

export interface WhoAmI {
  tenant: string;
  keyId: string;
  access: 'read' | 'read-write';
  collections: string[] | null;
  search: boolean;
  rerankers: string[];
}

export type RecallHit = Hit;

/** `POST /v1/recall`, with the server's own timings when asked for. */
export interface RecallResponse extends RecallResult {
  server?: { parseMs: number; recallMs: number; totalMs: number };
}

/** `POST /v1/search` body: the wire search options every entry point shares. */
export type SearchRequest = { query: string; scope: RequestScope } & WireSearchOptions;

/** `POST /v1/search`. */
export type SearchResponse = SearchResult;

export interface InjectResponse {
  request: Record<string, unknown>;
  injected: boolean;
  query: string | null;
  hits: Array<{ id: string; score: number }>;
  block: string | null;
}

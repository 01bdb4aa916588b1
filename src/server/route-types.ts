import type { Principal } from '../auth/api-key.js';
import type { KeyVerifier } from '../auth/key-store.js';
import type { MemoryApi } from '../model/api.js';
import type { EngramErrorCode } from '../model/errors.js';
import type { ServerLimits } from './server-limits.js';
import type { ServerMetrics } from './server-metrics.js';

/** Per-request variables of the Hono app. */
export interface AppEnv {
  Variables: {
    reqId: string;
    /** performance.now() when the request arrived. */
    startedAt: number;
    /** Route template for metrics and logs. */
    route: string;
    principal?: Principal | undefined;
    errorCode?: EngramErrorCode | undefined;
  };
}

/**
 * What the server says about `/v1/search` besides running it: the search itself is the served
 * API's `search`, so these are only facts the server cannot ask the API for.
 */
export interface SearchServing {
  /** Reranker names the served API accepts (the inspector's list). */
  rerankers: readonly string[];
}

/** What route modules need. */
export interface RouteKit {
  api: MemoryApi;
  keys: KeyVerifier;
  limits: ServerLimits;
  metrics: ServerMetrics;
  validateResponses: boolean;
  /** `/v1/search` settings, or false when the operator turned search off. */
  search: SearchServing | false;
}

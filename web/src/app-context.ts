import type { ApiClient } from './api-client.js';
import type { Memory, RequestScope, WhoAmI } from './wire-types.js';

/** What every view gets: the API with the page's key, who the key is, and the scope picker. */
export interface AppContext {
  api: ApiClient;
  who: WhoAmI;
  /** The scope chosen in the header (user, agent, session, collection; empty = any). */
  scope(): RequestScope;
  /** Offers the scopes of listed memories as choices in the scope picker. */
  rememberScopes(memories: Memory[]): void;
}

/** A message for an error thrown by the API or the page. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return 'code' in error ? `${String(error.code)}: ${error.message}` : error.message;
  return String(error);
}

import type { HistoryCaller } from '../model/formation/history.js';
import type { Principal } from './api-key.js';

/** Who a request acts as, as the history records it: the API key's id (never the secret). */
export function principalCaller(principal: Principal): HistoryCaller {
  return { kind: 'api-key', id: principal.keyId };
}

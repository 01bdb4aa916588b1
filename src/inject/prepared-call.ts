import type { Scope } from '../model/scope.js';

/** A request ready to send, with what capture needs afterwards. */
export interface PreparedCall<R> {
  /** The request to send: the caller's own object when nothing was injected. */
  request: R;
  query: string | null;
  scope: Scope | null;
  /** Where capture stores this call's turns (null: not captured). */
  captureScope: Scope | null;
  injected: boolean;
}

import type { Scope } from '../model/scope.js';

/**
 * Where a call's scope comes from: fixed per wrapper, or computed per call from the request
 * (e.g. from OpenAI's `user` / `metadata` or Anthropic's `metadata.user_id`). Returning null or
 * undefined means "no memory for this call".
 */
export type ScopeSource = Scope | ((request: unknown) => Scope | null | undefined | Promise<Scope | null | undefined>);

/** The scope `source` gives for `request`, null for none. Rejects with what a resolver throws. */
export async function resolveScope(source: ScopeSource, request: unknown): Promise<Scope | null> {
  const scope = typeof source === 'function' ? await source(request) : source;
  return scope ?? null;
}

import type { Scope } from '../model/scope.js';
import type { SearchOptions } from '../model/search-options.js';

/** May the caller read this collection of this scope? */
export type CanRead = (scope: Scope, collection: string) => boolean | Promise<boolean>;

/** The collections a search reads, and the requested ones it may not. */
export interface ReadableCollections {
  /** `[null]` when the search names no collection: the whole scope. */
  searched: Array<string | null>;
  denied: string[];
}

/**
 * Splits the requested collections (`collections`, else the scope's own collection) into those the
 * caller may read and those it may not, each asked once, in request order. Denied collections are
 * never touched. @default every collection readable when `canRead` is absent
 */
export async function readableCollections(
  options: SearchOptions,
  canRead: CanRead | undefined,
): Promise<ReadableCollections> {
  const requested =
    options.collections ?? (options.scope.collection !== undefined ? [options.scope.collection] : undefined);
  if (!requested) return { searched: [null], denied: [] };
  const searched: string[] = [];
  const denied: string[] = [];
  for (const c of [...new Set(requested)]) {
    const allowed = canRead ? await canRead(options.scope, c) : true;
    (allowed ? searched : denied).push(c);
  }
  return { searched, denied };
}

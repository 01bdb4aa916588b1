/**
 * Who a memory belongs to. `tenant` is the isolation boundary: nothing ever crosses it.
 * The other fields narrow within a tenant; a field left out of a query scope matches any value.
 */
export interface Scope {
  tenant: string;
  user?: string | undefined;
  agent?: string | undefined;
  session?: string | undefined;
  /** A named collection of memories (a "cube" of the multi-path searcher). */
  collection?: string | undefined;
}

export const SCOPE_FIELDS = ['tenant', 'user', 'agent', 'session', 'collection'] as const;

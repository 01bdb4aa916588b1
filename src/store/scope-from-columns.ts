import type { Scope } from '../model/scope.js';

/** The scope columns every backend stores; null means "not set". */
export interface ScopeColumns {
  tenant: string;
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
  collection: string | null;
}

/** The public {@link Scope} of a row: absent scope fields stay absent (not null). */
export function scopeFromColumns(row: ScopeColumns): Scope {
  const scope: Scope = { tenant: row.tenant };
  if (row.user_id !== null) scope.user = row.user_id;
  if (row.agent_id !== null) scope.agent = row.agent_id;
  if (row.session_id !== null) scope.session = row.session_id;
  if (row.collection !== null) scope.collection = row.collection;
  return scope;
}

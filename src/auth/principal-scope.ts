import type { Principal } from './api-key.js';
import { EngramError } from '../model/errors.js';
import type { Memory } from '../model/memory.js';
import type { Scope } from '../model/scope.js';
import { validateScope } from '../model/validate.js';

/** Whether a request reads or writes memories. */
export type AccessMode = 'read' | 'write';

/** The narrowing a request asks for; its tenant is only checked, never trusted. */
export interface RequestedScope {
  tenant?: string | null | undefined;
  user?: string | null | undefined;
  agent?: string | null | undefined;
  session?: string | null | undefined;
  collection?: string | null | undefined;
}

/** Throws FORBIDDEN when a read-only key asks to write. */
export function requireAccess(principal: Principal, mode: AccessMode): void {
  if (mode === 'write' && principal.access !== 'read-write') {
    throw new EngramError('FORBIDDEN', 'this API key is read-only', { details: { keyId: principal.keyId } });
  }
}

/**
 * The scope a request acts in: the key's tenant, narrowed by the requested user, agent, session
 * and collection. A requested tenant must equal the key's; a collection-limited key must name
 * one of its collections (it defaults to the only one when it has exactly one).
 */
export function resolveScope(principal: Principal, requested: RequestedScope | undefined, mode: AccessMode): Scope {
  requireAccess(principal, mode);
  const req = requested ?? {};
  if (req.tenant !== undefined && req.tenant !== null && req.tenant !== principal.tenant) {
    throw new EngramError('FORBIDDEN', "the tenant comes from the API key; the requested tenant is not the key's", {
      details: { field: 'scope.tenant' },
    });
  }
  let collection = req.collection ?? undefined;
  const allowed = principal.collections;
  if (allowed !== null) {
    if (collection === undefined) {
      if (allowed.length !== 1) {
        throw new EngramError(
          'FORBIDDEN',
          `this API key is limited to collections ${allowed.join(', ')}; name one in scope.collection`,
          {
            details: { field: 'scope.collection', allowed },
          },
        );
      }
      collection = allowed[0];
    } else if (!allowed.includes(collection)) {
      throw new EngramError('FORBIDDEN', `this API key cannot access collection ${collection}`, {
        details: { field: 'scope.collection', allowed },
      });
    }
  }
  return validateScope({
    tenant: principal.tenant,
    user: req.user ?? undefined,
    agent: req.agent ?? undefined,
    session: req.session ?? undefined,
    collection,
  });
}

/** True when a collection-limited key may see this memory (always true for unlimited keys). */
export function canSee(principal: Principal, memory: Memory): boolean {
  if (memory.scope.tenant !== principal.tenant) return false;
  if (principal.collections === null) return true;
  return memory.scope.collection !== undefined && principal.collections.includes(memory.scope.collection);
}

/**
 * The scope of a search that names `collections`: each must be one the key may read (FORBIDDEN
 * otherwise, before anything is read), and a collection-limited key that names no
 * `scope.collection` acts in the first of them.
 */
export function resolveSearchScope(
  principal: Principal,
  requested: RequestedScope | undefined,
  collections: readonly string[] | undefined,
): Scope {
  const allowed = principal.collections;
  for (const collection of collections ?? []) {
    if (allowed !== null && !allowed.includes(collection)) {
      throw new EngramError('FORBIDDEN', `this API key cannot access collection ${collection}`, {
        details: { field: 'collections', allowed },
      });
    }
  }
  return resolveScope(principal, { ...requested, collection: requested?.collection ?? collections?.[0] }, 'read');
}

import type { RequestedScope } from '../auth/principal-scope.js';
import { scopeValue } from '../wire/search-option-fields.js';

/** The scope arguments every tool takes (the tenant always comes from the connection). */
export const scopeArgs = {
  tenant: scopeValue.optional().describe("Ignored unless given: then it must equal the connection's tenant."),
  user: scopeValue.optional().describe('Narrow to this user.'),
  agent: scopeValue.optional().describe('Narrow to this agent.'),
  session: scopeValue.optional().describe('Narrow to this session.'),
  collection: scopeValue.optional().describe('Narrow to this collection.'),
};

type ScopeArgs = { [K in keyof typeof scopeArgs]?: string | undefined };

/** The scope arguments of a call, and the rest. */
export function splitScope<T extends ScopeArgs>(
  args: T,
): { requested: RequestedScope; rest: Omit<T, keyof ScopeArgs> } {
  const { tenant, user, agent, session, collection, ...rest } = args;
  return { requested: { tenant, user, agent, session, collection }, rest };
}

import type { ApplyContext } from '../model/formation/formation-store.js';
import type { FacadeContext } from './facade-context.js';

/** Formation's `archive` of formed turns: each still-active episode archived, recorded with the window's cause. */
export async function archiveFormedTurns(
  ctx: Pick<FacadeContext, 'store' | 'withRetry'>,
  tenant: string,
  ids: string[],
  context: ApplyContext,
): Promise<void> {
  const active = (await ctx.withRetry(() => ctx.store.get(tenant, ids))).filter((m) => m.status === 'activated');
  const write = { cause: context.cause, caller: context.caller, at: context.at, sourceTurnIds: ids };
  for (const memory of active) {
    await ctx.withRetry(() =>
      ctx.store.update(tenant, memory.id, { status: 'archived', updatedAt: context.at }, undefined, write),
    );
  }
}

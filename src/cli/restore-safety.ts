import { resolve } from 'node:path';

import type { SensitiveCategory } from '../model/safety-policy-patch.js';
import { readStoredReport } from '../safety/stored-report.js';
import { WriteGuard } from '../safety/write-guard.js';
import type { HistoryEvent } from '../model/formation/history.js';
import type { MemoryRecord } from '../store/memory-store.js';
import { dataDirTenantPolicy } from '../tenant/tenant-settings.js';
import { safetyPolicyFromEnv } from './cli-context.js';
import { scrubSnapshot } from './scrub-tenant.js';

/** What the policy did to a restore. */
export interface RestoreSafetySummary {
  /** Records the policy changed. */
  changed: number;
  /** Values masked, per category. */
  masked: Partial<Record<SensitiveCategory, number>>;
  /** Records flagged as trying to instruct the model. */
  flagged: number;
  /** Records whose vector was dropped (their text was masked: run `engram reembed`). */
  vectorsDropped: number;
  /** History events whose snapshots were masked. */
  historyRedacted: number;
}

/**
 * The write-safety policy of `engram restore`, which writes to the store directly: the instance's
 * (ENGRAM_SAFETY) and each record's tenant's (the data directory's settings), applied to every
 * record before its batch is written, with counts for the summary line.
 */
export function restoreSafety(dataDir: string): {
  prepare: (records: MemoryRecord[]) => Promise<MemoryRecord[]>;
  prepareHistory: (events: HistoryEvent[]) => Promise<HistoryEvent[]>;
  summary: () => RestoreSafetySummary;
  describe: () => string;
  close: () => void;
} {
  const tenantPolicy = dataDirTenantPolicy(resolve(dataDir));
  const guard = new WriteGuard({ policy: safetyPolicyFromEnv(), tenantPolicy });
  const totals: RestoreSafetySummary = { changed: 0, masked: {}, flagged: 0, vectorsDropped: 0, historyRedacted: 0 };
  let seen = 0;
  const prepare = async (records: MemoryRecord[]): Promise<MemoryRecord[]> => {
    const out: MemoryRecord[] = [];
    for (const record of records) {
      seen += 1;
      const policy = await guard.policy(record.scope.tenant);
      const before = readStoredReport(record.metadata);
      const { record: guarded, vectorDropped } = guard.record(record, policy, `record ${seen} (${record.id})`);
      const after = readStoredReport(guarded.metadata);
      if (guarded !== record) totals.changed += 1;
      for (const [category, n] of Object.entries(after.masked) as Array<[SensitiveCategory, number]>) {
        const added = n - (before.masked[category] ?? 0);
        if (added > 0) totals.masked[category] = (totals.masked[category] ?? 0) + added;
      }
      if (after.flags.length > 0) totals.flagged += 1;
      if (vectorDropped) totals.vectorsDropped += 1;
      out.push(guarded);
    }
    return out;
  };
  // An export's history holds the memories' past texts: masked like them, never refused.
  const prepareHistory = async (events: HistoryEvent[]): Promise<HistoryEvent[]> => {
    const out: HistoryEvent[] = [];
    for (const event of events) {
      const policy = await guard.policy(event.tenant);
      const before = scrubSnapshot(event.before, policy);
      const after = scrubSnapshot(event.after, policy);
      if (before !== event.before || after !== event.after) totals.historyRedacted += 1;
      out.push(before === event.before && after === event.after ? event : { ...event, before, after });
    }
    return out;
  };
  const describe = (): string => {
    const masked = Object.entries(totals.masked).map(([c, n]) => `${n} ${c}`);
    const parts = [
      masked.length > 0 ? `masked ${masked.join(', ')} in ${totals.changed} memories` : '',
      totals.flagged > 0 ? `${totals.flagged} flagged as instructions` : '',
      totals.vectorsDropped > 0 ? `${totals.vectorsDropped} vectors dropped (run engram reembed)` : '',
      totals.historyRedacted > 0 ? `${totals.historyRedacted} history events masked` : '',
    ].filter((p) => p !== '');
    return parts.length === 0 ? '' : ` (safety: ${parts.join('; ')})`;
  };
  return { prepare, prepareHistory, summary: () => totals, describe, close: () => void tenantPolicy.close?.() };
}

import type { Embedder } from '../embed/embedder.js';
import type { HistoryEvent, MemorySnapshot } from '../model/formation/history.js';
import type { Memory } from '../model/memory.js';
import { MEMORY_STATUSES } from '../model/memory-type.js';
import type { SensitiveCategory } from '../model/safety-policy-patch.js';
import { runSafety } from '../safety/run-safety.js';
import type { SafetyPolicy } from '../safety/safety-policy.js';
import type { SafetyReport } from '../safety/safety-report.js';
import { scrubMemory } from '../safety/scrub-memory.js';
import { readStoredReport, withStoredReport } from '../safety/stored-report.js';
import type { MemoryStore, StorePatch, StoreVector } from '../store/memory-store.js';

/** What {@link scrubTenant} did (or, with `dryRun`, would do). Counts, never a value. */
export interface ScrubSummary {
  dryRun: boolean;
  /** Memories read (every status). */
  scanned: number;
  /** Memories changed: masked, or flagged or unflagged as instructions. */
  changed: number;
  /** Values masked, per category (rejected categories included: stored data cannot be refused). */
  masked: Partial<Record<SensitiveCategory, number>>;
  /** Of `masked`, values of categories the policy rejects on write, per category. */
  rejected: Partial<Record<SensitiveCategory, number>>;
  /** Memories now flagged as trying to instruct the model. */
  flagged: number;
  /** Masked memories whose vector was recomputed from the masked text. */
  reembedded: number;
  /** Masked memories whose vector was dropped (another model than the embedder's: run `engram reembed`). */
  vectorsDropped: number;
  /** Past history events whose snapshots held a value the policy masks, rewritten masked. */
  historyRedacted: number;
  /**
   * True when the store was compacted after the changes (`MemoryStore.compact`: on SQLite the
   * overwritten values leave the file, its WAL and its full-text index), so nothing masked
   * survives in freed space. False for a dry run, when nothing changed, or for a store without
   * it (PostgreSQL: see docs/safety.md).
   */
  compacted: boolean;
}

/** Options of {@link scrubTenant}. */
export interface ScrubOptions {
  tenant: string;
  policy: SafetyPolicy;
  /** Count only; write nothing. @default false */
  dryRun?: boolean | undefined;
  /**
   * The embedder that re-embeds masked text when it is the model of the memory's vector (otherwise
   * the vector is dropped); opened on the first masked text that has a vector. @default none (vectors dropped)
   */
  embedder?: (() => Promise<Embedder>) | undefined;
  /** Memories per page. @default 200 */
  pageSize?: number | undefined;
  onProgress?: ((scanned: number) => void) | undefined;
  /** @default () => new Date() */
  clock?: (() => Date) | undefined;
}

const CONTENT_FIELDS = ['text', 'key', 'tags', 'summary', 'background', 'sources'] as const;
const SCRUB_CONTEXT = {
  cause: { type: 'system', detail: 'scrub' },
  caller: { kind: 'system', id: 'engram scrub' },
} as const;

function add(into: Partial<Record<SensitiveCategory, number>>, from: Partial<Record<SensitiveCategory, number>>): void {
  for (const [c, n] of Object.entries(from) as Array<[SensitiveCategory, number]>) into[c] = (into[c] ?? 0) + n;
}

/** The memory's new report: what was masked before and now, and the flags read now. */
function nextReport(memory: Memory, now: SafetyReport): SafetyReport {
  const before = readStoredReport(memory.metadata);
  const items = [...before.items, ...now.items];
  const masked: SafetyReport['masked'] = {};
  for (const item of items) masked[item.category] = (masked[item.category] ?? 0) + 1;
  return { masked, items, flags: now.flags };
}

/** The patch that stores the scrubbed memory, or null when nothing (content or report) changes. */
function scrubPatch(
  memory: Memory,
  policy: SafetyPolicy,
): { patch: Omit<StorePatch, 'updatedAt'>; result: ReturnType<typeof scrubMemory> } | null {
  const result = scrubMemory(memory, policy);
  const metadata = withStoredReport(result.memory.metadata, nextReport(memory, result.report));
  const patch: Omit<StorePatch, 'updatedAt'> = {};
  for (const name of CONTENT_FIELDS) {
    if (result.memory[name] !== memory[name]) (patch as Record<string, unknown>)[name] = result.memory[name];
  }
  if (JSON.stringify(metadata) !== JSON.stringify(memory.metadata)) patch.metadata = metadata;
  return Object.keys(patch).length === 0 ? null : { patch, result };
}

async function vectorFor(
  memory: Memory,
  text: string | undefined,
  open: (() => Promise<Embedder>) | undefined,
): Promise<StoreVector | undefined> {
  if (text === undefined || memory.embedding === null) return undefined;
  const embedder = await open?.();
  if (embedder === undefined || embedder.model !== memory.embedding.model) return null;
  const [vector] = (await embedder.embed([text])) as [Float32Array];
  return { vector, embedding: { model: embedder.model, dim: vector.length } };
}

/** A history snapshot with the policy applied (its own safety report left alone), or the same object. */
export function scrubSnapshot(snapshot: MemorySnapshot | null, policy: SafetyPolicy): MemorySnapshot | null {
  return snapshot === null ? null : runSafety(snapshot, policy, 'scrub').value;
}

/** Rewrites the events whose snapshots still hold what the policy masks; returns how many. */
async function redactHistory(store: MemoryStore, events: HistoryEvent[], options: ScrubOptions): Promise<number> {
  const changed: HistoryEvent[] = [];
  for (const event of events) {
    const before = scrubSnapshot(event.before, options.policy);
    const after = scrubSnapshot(event.after, options.policy);
    if (before !== event.before || after !== event.after) changed.push({ ...event, before, after });
  }
  if (changed.length > 0 && options.dryRun !== true) await store.formation?.history.redact(options.tenant, changed);
  return changed.length;
}

/**
 * `engram scrub`: applies the write-safety policy to what a tenant already stores — every memory
 * of every status, each change written through the store's update with a history event (cause
 * `system: scrub`); then the memories' past history events and those of deleted memories, whose
 * snapshots are rewritten masked (the one edit the history log allows). Idempotent: a second
 * run changes nothing.
 */
export async function scrubTenant(store: MemoryStore, options: ScrubOptions): Promise<ScrubSummary> {
  const summary: ScrubSummary = {
    dryRun: options.dryRun === true,
    scanned: 0,
    changed: 0,
    masked: {},
    rejected: {},
    flagged: 0,
    reembedded: 0,
    vectorsDropped: 0,
    historyRedacted: 0,
    compacted: false,
  };
  const clock = options.clock ?? (() => new Date());
  const filter = { scope: { tenant: options.tenant }, statuses: [...MEMORY_STATUSES] };
  let cursor: string | undefined;
  do {
    const page = await store.list(filter, { limit: options.pageSize ?? 200, cursor });
    for (const memory of page.items) {
      summary.scanned += 1;
      const scrubbed = scrubPatch(memory, options.policy);
      if (scrubbed === null) continue;
      const { patch, result } = scrubbed;
      summary.changed += 1;
      add(summary.masked, result.report.masked);
      add(summary.rejected, result.rejected);
      if (result.report.flags.length > 0) summary.flagged += 1;
      if (summary.dryRun) continue;
      const vector = await vectorFor(memory, patch.text, options.embedder);
      if (vector === null) summary.vectorsDropped += 1;
      else if (vector !== undefined) summary.reembedded += 1;
      const at = clock().toISOString();
      await store.update(options.tenant, memory.id, { ...patch, updatedAt: at }, vector, SCRUB_CONTEXT);
    }
    const history = store.formation?.history;
    if (history !== undefined && page.items.length > 0) {
      const events = await history.forMemories(
        options.tenant,
        page.items.map((m) => m.id),
      );
      summary.historyRedacted += await redactHistory(store, events, options);
    }
    options.onProgress?.(summary.scanned);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  summary.historyRedacted += await redactDeleted(store, options);
  // An update leaves the old row in freed pages, the WAL and FTS5's segments until they are rewritten.
  if (!summary.dryRun && summary.changed + summary.historyRedacted > 0 && store.compact !== undefined) {
    await store.compact();
    summary.compacted = true;
  }
  return summary;
}

/** The history of the tenant's hard-deleted memories, redacted page by page. */
async function redactDeleted(store: MemoryStore, options: ScrubOptions): Promise<number> {
  const history = store.formation?.history;
  if (history === undefined) return 0;
  let redacted = 0;
  let cursor: string | undefined;
  do {
    const page = await history.orphans(options.tenant, { limit: 500, cursor });
    redacted += await redactHistory(store, page.items, options);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return redacted;
}

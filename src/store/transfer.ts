import { EngramError } from '../model/errors.js';
import type { HistoryEvent } from '../model/formation/history.js';
import type { Memory } from '../model/memory.js';
import { MEMORY_STATUSES } from '../model/memory-type.js';
import type { MemoryRecord, MemoryStore, UsageEntry } from './memory-store.js';
import { RestoreCheck, withLine } from './restore-check.js';
import { replayUsage } from './replay-usage.js';
import { assertHistoryEvents } from './sql/history-rows.js';

/** Format tag of one exported memory (one JSON object per JSONL line). */
export const TRANSFER_FORMAT = 'engram.memory/v1';

/** Format tag of one exported history event of a memory that no longer exists. */
export const HISTORY_TRANSFER_FORMAT = 'engram.history/v1';

/**
 * One memory as exported: every stored field (world-time validity included), usage, the vector
 * as base64 of its little-endian float32 bytes next to the embedding info it belongs to, and its
 * history. Plain JSON. Exports from before formation lack validity and history: they read with
 * the defaults (`validFrom` from `statedAt ?? createdAt`) and get a `restored` event.
 */
export interface TransferRecord extends Memory {
  format: typeof TRANSFER_FORMAT;
  /** base64 of little-endian float32 values, or null when the memory has no vector. */
  vector: string | null;
  /** The memory's history events, oldest first (absent from stores without a history log). */
  history?: HistoryEvent[] | undefined;
}

/** One event of a hard-deleted memory (its history outlives it). */
export interface HistoryTransferRecord {
  format: typeof HISTORY_TRANSFER_FORMAT;
  event: HistoryEvent;
}

/** A line of an export file. */
export type TransferLine = TransferRecord | HistoryTransferRecord;

/** Encodes a vector as base64 little-endian float32. */
export function vectorToBase64(vector: Float32Array): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i] as number, i * 4);
  return bytes.toString('base64');
}

/** Options of {@link exportTenant}. */
export interface ExportOptions {
  /** Rows fetched per page. @default 500 */
  pageSize?: number | undefined;
}

/**
 * Streams every memory of a tenant (all statuses, all users), oldest first, as
 * {@link TransferRecord}s — one per JSONL line for `engram export`.
 */
export async function* exportTenant(
  store: MemoryStore,
  tenant: string,
  options: ExportOptions = {},
): AsyncIterable<TransferRecord> {
  const pageSize = options.pageSize ?? 500;
  let cursor: string | undefined;
  do {
    const page = await store.list(
      { scope: { tenant }, statuses: [...MEMORY_STATUSES] },
      { limit: pageSize, cursor, order: 'createdAt', direction: 'asc' },
    );
    const vectors = await store.getVectors(
      tenant,
      page.items.filter((m) => m.embedding !== null).map((m) => m.id),
    );
    const history = await historyByMemory(
      store,
      tenant,
      page.items.map((m) => m.id),
    );
    for (const memory of page.items) {
      const vector = vectors.get(memory.id);
      yield {
        format: TRANSFER_FORMAT,
        id: memory.id,
        text: memory.text,
        type: memory.type,
        key: memory.key,
        tags: memory.tags,
        level: memory.level,
        summary: memory.summary,
        background: memory.background,
        sources: memory.sources,
        scope: memory.scope,
        metadata: memory.metadata,
        statedAt: memory.statedAt,
        createdAt: memory.createdAt,
        updatedAt: memory.updatedAt,
        status: memory.status,
        usage: memory.usage,
        embedding: vector ? memory.embedding : null,
        validFrom: memory.validFrom,
        validTo: memory.validTo,
        supersededBy: memory.supersededBy,
        version: memory.version,
        vector: vector ? vectorToBase64(vector) : null,
        ...(history === null ? {} : { history: history.get(memory.id) ?? [] }),
      };
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** The events of these memories by memory id, or null when the store keeps no history. */
async function historyByMemory(
  store: MemoryStore,
  tenant: string,
  ids: string[],
): Promise<Map<string, HistoryEvent[]> | null> {
  if (store.formation === undefined) return null;
  const out = new Map<string, HistoryEvent[]>();
  for (const event of await store.formation.history.forMemories(tenant, ids)) {
    const list = out.get(event.memoryId) ?? [];
    list.push(event);
    out.set(event.memoryId, list);
  }
  return out;
}

/**
 * Streams the history of the tenant's hard-deleted memories (their events outlive them), as
 * {@link HistoryTransferRecord}s: what `engram export` writes after the memories.
 */
export async function* exportDeletedHistory(
  store: MemoryStore,
  tenant: string,
  options: ExportOptions = {},
): AsyncIterable<HistoryTransferRecord> {
  if (store.formation === undefined) return;
  let cursor: string | undefined;
  do {
    const page = await store.formation.history.orphans(tenant, { limit: options.pageSize ?? 500, cursor });
    for (const event of page.items) yield { format: HISTORY_TRANSFER_FORMAT, event };
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

/** Options of {@link importRecords}. */
export interface ImportOptions {
  /** Records inserted per transaction. @default 500 */
  batchSize?: number | undefined;
  /** Write every record into this tenant instead of its own. */
  tenant?: string | undefined;
  /** Called after each batch with the number of records imported so far. */
  onProgress?: ((imported: number) => void) | undefined;
  /**
   * Applied to each batch before it is written, e.g. the write-safety policy (`engram restore`
   * masks what it masks); may throw to refuse the batch. @default none
   */
  prepare?: ((records: MemoryRecord[]) => MemoryRecord[] | Promise<MemoryRecord[]>) | undefined;
  /** Applied to each batch's history events before they are written, like `prepare`. @default none */
  prepareHistory?: ((events: HistoryEvent[]) => HistoryEvent[] | Promise<HistoryEvent[]>) | undefined;
}

/** What {@link importRecords} did. */
export interface ImportReport {
  imported: number;
}

/** The float32 values of a base64 vector, however many there are (the record check compares them with `dim`). */
function decodeVector(value: unknown, id: unknown): Float32Array {
  const bytes = typeof value === 'string' ? Buffer.from(value, 'base64') : null;
  if (bytes === null || bytes.length % 4 !== 0 || bytes.length === 0) {
    throw new EngramError('INVALID_VECTOR', `the vector of ${String(id)} is not base64 of float32 values`, {
      details: { id },
    });
  }
  const out = new Float32Array(bytes.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

function toRecord(input: TransferRecord, tenant: string | undefined): MemoryRecord {
  if (input === null || typeof input !== 'object' || input.format !== TRANSFER_FORMAT) {
    throw new EngramError('INVALID_INPUT', `not an ${TRANSFER_FORMAT} record`, {
      details: { id: (input as { id?: unknown } | null)?.id },
    });
  }
  const embedding = input.embedding ?? null;
  let vector: Float32Array | null = null;
  if (input.vector !== null && input.vector !== undefined) {
    if (embedding === null)
      throw new EngramError('INVALID_VECTOR', 'a vector needs embedding info', { details: { id: input.id } });
    vector = decodeVector(input.vector, input.id);
  }
  return {
    id: input.id,
    text: input.text,
    type: input.type,
    key: input.key ?? null,
    tags: input.tags ?? [],
    level: input.level ?? null,
    summary: input.summary ?? null,
    background: input.background ?? null,
    sources: input.sources ?? [],
    scope: tenant === undefined || !isObject(input.scope) ? input.scope : { ...input.scope, tenant },
    metadata: input.metadata ?? {},
    statedAt: input.statedAt ?? null,
    createdAt: input.createdAt,
    updatedAt: input.updatedAt,
    status: input.status,
    embedding: vector === null ? null : embedding,
    validFrom: input.validFrom ?? undefined,
    validTo: input.validTo ?? null,
    supersededBy: input.supersededBy ?? null,
    version: input.version ?? undefined,
    vector,
  };
}

const isObject = (value: unknown): value is object => value !== null && typeof value === 'object';

/** A line's events, in the tenant they are restored into. */
function eventsOf(line: TransferLine, tenant: string | undefined): HistoryEvent[] {
  const events = line.format === HISTORY_TRANSFER_FORMAT ? [line.event] : (line.history ?? []);
  if (!Array.isArray(events) || events.some((e) => e === null || typeof e !== 'object'))
    throw new EngramError('INVALID_INPUT', 'history must be a list of events', { details: { format: line.format } });
  return tenant === undefined ? events : events.map((e) => ({ ...e, tenant }));
}

/** Restores usage with setUsage, or by replaying recordUsage (exact, slower) when absent. */
async function restoreUsage(store: MemoryStore, tenant: string, usage: UsageEntry[]): Promise<void> {
  const used = usage.filter((u) => u.count > 0 || u.lastUsedAt !== null);
  if (used.length === 0) return;
  if (store.setUsage) {
    await store.setUsage(tenant, used);
    return;
  }
  await replayUsage(store, tenant, used);
}

/** What a restore reads: lines once over, or a function that opens them anew (read twice: checked, then written). */
export type TransferSource = TransferLines | (() => TransferLines);

/** Lines of an export, in order. */
export type TransferLines = AsyncIterable<TransferLine> | Iterable<TransferLine>;

/** Opens the lines for each pass; a one-shot iterator (a generator) is kept in memory by the first pass. */
function passes(source: TransferSource): { first(): TransferLines; second(): TransferLines } {
  if (typeof source === 'function') return { first: source, second: source };
  const reiterable =
    Symbol.iterator in source
      ? ((source as Iterable<TransferLine>)[Symbol.iterator]() as unknown) !== source
      : ((source as AsyncIterable<TransferLine>)[Symbol.asyncIterator]() as unknown) !== source;
  if (reiterable) return { first: () => source, second: () => source };
  const kept: TransferLine[] = [];
  return {
    first: () => keep(source, kept),
    second: () => kept,
  };
}

async function* keep(source: TransferLines, into: TransferLine[]): AsyncIterable<TransferLine> {
  for await (const line of source) {
    into.push(line);
    yield line;
  }
}

/** The memory record of a line (null for a history line), checked; errors name the line. */
function lineRecord(
  line: TransferLine,
  n: number,
  tenant: string | undefined,
): { record: MemoryRecord | null; events: HistoryEvent[] } {
  try {
    if (line === null || typeof line !== 'object')
      throw new EngramError('INVALID_INPUT', `not an ${TRANSFER_FORMAT} record`);
    const events = eventsOf(line, tenant);
    assertHistoryEvents(events);
    return { record: line.format === HISTORY_TRANSFER_FORMAT ? null : toRecord(line, tenant), events };
  } catch (error) {
    throw error instanceof EngramError ? withLine(error, n) : error;
  }
}

/**
 * Restores {@link TransferRecord}s (from {@link exportTenant} or a JSONL file) and the events of
 * deleted memories ({@link exportDeletedHistory}). The whole source is checked first (every
 * record as the store checks it; each vector against its declared model and dimension, finite
 * and not all zeros; one embedding model per (tenant, user) with what the store holds; no id
 * twice or already stored) and nothing is written unless all of it passes — the error names the
 * record. Then batches are written, each one insert with its history (all or nothing), then its
 * usage. A memory that brings its history keeps it as it was; one without (an export from before
 * formation) is recorded as `restored`. Returns how many memory records were imported.
 */
export async function importRecords(
  store: MemoryStore,
  source: TransferSource,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const lines = passes(source);
  const check = new RestoreCheck(store);
  let n = 0;
  for await (const line of lines.first()) {
    n += 1;
    const { record, events } = lineRecord(line, n, options.tenant);
    if (record !== null) check.add(record, n);
    check.addEvents(events, n);
  }
  await check.finish();
  return writeRecords(store, lines.second(), options);
}

/** The second pass of {@link importRecords}: the checked lines, batch by batch. */
async function writeRecords(store: MemoryStore, records: TransferLines, options: ImportOptions): Promise<ImportReport> {
  const batchSize = options.batchSize ?? 500;
  let imported = 0;
  let batch: Array<{ line: TransferRecord; record: MemoryRecord }> = [];
  let history: HistoryEvent[] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0 && history.length === 0) return;
    const parsed = batch.map((b) => b.record);
    const rows = options.prepare ? await options.prepare(parsed) : parsed;
    const events = options.prepareHistory && history.length > 0 ? await options.prepareHistory(history) : history;
    await store.insert(rows, {
      cause: { type: 'import', source: TRANSFER_FORMAT },
      kind: 'restored',
      history: store.formation === undefined ? undefined : events,
    });
    const byTenant = new Map<string, UsageEntry[]>();
    for (const { line, record } of batch) {
      const list = byTenant.get(record.scope.tenant) ?? [];
      list.push({ id: line.id, count: line.usage?.count ?? 0, lastUsedAt: line.usage?.lastUsedAt ?? null });
      byTenant.set(record.scope.tenant, list);
    }
    for (const [t, usage] of byTenant) await restoreUsage(store, t, usage);
    imported += batch.length;
    batch = [];
    history = [];
    options.onProgress?.(imported);
  };
  let n = 0;
  for await (const line of records) {
    n += 1;
    const { record, events } = lineRecord(line, n, options.tenant);
    history.push(...events);
    if (record !== null) batch.push({ line: line as TransferRecord, record });
    if (batch.length >= batchSize || history.length >= 16 * batchSize) await flush();
  }
  await flush();
  return { imported };
}

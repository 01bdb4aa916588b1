import { EngramError } from '../../model/errors.js';
import {
  HISTORY_EVENT_KINDS,
  type HistoryCaller,
  type HistoryCause,
  type HistoryEvent,
  type HistoryEventKind,
  type MemorySnapshot,
} from '../../model/formation/history.js';
import type { FormationPage } from '../../model/formation/history.js';
import type { Memory } from '../../model/memory.js';
import type { MemoryRecord, WriteContext } from '../memory-store.js';
import { assertLimit, assertTenant } from '../record-validation.js';
import { assertStorableJson } from '../text-check.js';
import { storedValidFrom } from './memory-columns.js';
import { steps, wait, type Maybe } from './maybe-async.js';
import type { SqlQueries } from './query-runner.js';
import type { InsertColumn, SqlDialect } from './sql-dialect.js';

/** The caller of a write that names none. */
export const SYSTEM_CALLER: HistoryCaller = Object.freeze({ kind: 'system', id: null });

/** An event about to be appended: everything but its place in the memory's history. */
export type NewHistoryEvent = HistoryEvent & {
  /** The formation job whose window made the change, for a replayed completion. */
  jobId?: string | null | undefined;
};

/** The columns of the history table, in insert order. */
const HISTORY_COLUMNS: readonly InsertColumn[] = [
  { name: 'tenant', kind: 'text' },
  { name: 'memory_id', kind: 'text' },
  { name: 'n', kind: 'int' },
  { name: 'id', kind: 'text' },
  { name: 'kind', kind: 'text' },
  { name: 'at', kind: 'text' },
  { name: 'before', kind: 'json' },
  { name: 'after', kind: 'json' },
  { name: 'cause', kind: 'json' },
  { name: 'caller', kind: 'json' },
  { name: 'source_turn_ids', kind: 'json' },
  { name: 'job_id', kind: 'text' },
  { name: 'ord', kind: 'int' },
];

/** The select list of a history row (alias `h`). */
export const HISTORY_SELECT =
  'h.tenant AS tenant, h.memory_id AS memory_id, h.n AS n, h.id AS id, h.kind AS kind, h.at AS at, h.before AS before, ' +
  'h.after AS after, h.cause AS cause, h.caller AS caller, h.source_turn_ids AS source_turn_ids';

/** A history row as selected. */
export interface HistoryRow {
  tenant: string;
  memory_id: string;
  n: number;
  id: string;
  kind: string;
  at: string;
  before: unknown;
  after: unknown;
  cause: unknown;
  caller: unknown;
  source_turn_ids: unknown;
}

/** Checks events restored from an export: shape, a known kind, a timestamp, storable text. */
export function assertHistoryEvents(events: readonly HistoryEvent[]): void {
  if (!Array.isArray(events)) throw new EngramError('INVALID_INPUT', 'history must be an array of events');
  for (const event of events) {
    const ok =
      event !== null &&
      typeof event === 'object' &&
      typeof event.id === 'string' &&
      event.id !== '' &&
      typeof event.memoryId === 'string' &&
      event.memoryId !== '' &&
      HISTORY_EVENT_KINDS.includes(event.kind) &&
      typeof event.at === 'string' &&
      !Number.isNaN(Date.parse(event.at)) &&
      event.cause !== null &&
      typeof event.cause === 'object' &&
      event.caller !== null &&
      typeof event.caller === 'object' &&
      Array.isArray(event.sourceTurnIds);
    if (!ok) throw new EngramError('INVALID_INPUT', 'not a history event', { details: { id: event?.id } });
    assertTenant(event.tenant);
    assertStorableJson(event, 'history');
  }
}

/** The fields of a memory a history event shows. */
export function snapshotOf(memory: Memory): MemorySnapshot {
  return structuredClone({
    text: memory.text,
    type: memory.type,
    key: memory.key,
    tags: memory.tags,
    status: memory.status,
    sources: memory.sources,
    metadata: memory.metadata,
    statedAt: memory.statedAt,
    validFrom: memory.validFrom,
    validTo: memory.validTo,
    supersededBy: memory.supersededBy,
    version: memory.version,
    embedding: memory.embedding,
  });
}

/** The snapshot of a record as it will read back once inserted (shares the record's lists: it is serialised at once). */
export function recordSnapshot(record: MemoryRecord): MemorySnapshot {
  return {
    text: record.text,
    type: record.type,
    key: record.key ?? null,
    tags: record.tags,
    status: record.status,
    sources: record.sources,
    metadata: record.metadata,
    statedAt: record.statedAt ?? null,
    validFrom: storedValidFrom(record),
    validTo: record.validTo ?? null,
    supersededBy: record.supersededBy ?? null,
    version: record.version ?? 1,
    embedding: record.vector ? record.embedding : null,
  };
}

/** The event of one change made by a plain write (insert, update, delete), with the context's defaults. */
export function writeEvent(
  kind: HistoryEventKind,
  memory: { tenant: string; id: string },
  snapshots: { before: MemorySnapshot | null; after: MemorySnapshot | null },
  context: WriteContext | undefined,
  operation: string,
  at: string,
  newId: () => string,
): NewHistoryEvent {
  const cause: HistoryCause = context?.cause ?? { type: 'system', detail: `store.${operation}` };
  return {
    id: newId(),
    tenant: memory.tenant,
    memoryId: memory.id,
    kind,
    at: context?.at ?? at,
    before: snapshots.before,
    after: snapshots.after,
    cause,
    caller: context?.caller ?? SYSTEM_CALLER,
    sourceTurnIds: [...(context?.sourceTurnIds ?? [])],
  };
}

/**
 * Appends events inside the caller's transaction. Each memory's events are numbered 1, 2, …
 * (`n`, the order `list` pages through): the next numbers follow the highest one stored, so a
 * memory re-created under a deleted id continues its history. Writes to one memory are already
 * serialised by its row (or SQLite's one writer), so the numbers never collide.
 */
export function appendHistory(sql: SqlQueries, dialect: SqlDialect, events: readonly NewHistoryEvent[]): Maybe<void> {
  return steps(
    (function* () {
      const byTenant = new Map<string, NewHistoryEvent[]>();
      for (const event of events) {
        const list = byTenant.get(event.tenant) ?? [];
        list.push(event);
        byTenant.set(event.tenant, list);
      }
      for (const [tenant, list] of byTenant) {
        const params = dialect.params();
        const ids = [...new Set(list.map((e) => e.memoryId))];
        const rows = yield* wait(
          sql.all<{ memory_id: string; n: number }>(
            `SELECT h.memory_id AS memory_id, max(h.n) AS n FROM ${dialect.historyTable} h
             WHERE h.tenant = ${params.add(tenant)} AND ${dialect.anyOf('h.memory_id', ids, params)} GROUP BY h.memory_id`,
            params.values,
          ),
        );
        const next = new Map(rows.map((r) => [r.memory_id, Number(r.n)]));
        const values = list.map((event, ord) => {
          const n = (next.get(event.memoryId) ?? 0) + 1;
          next.set(event.memoryId, n);
          return [
            tenant,
            event.memoryId,
            n,
            event.id,
            event.kind,
            event.at,
            event.before,
            event.after,
            event.cause,
            event.caller,
            event.sourceTurnIds,
            event.jobId ?? null,
            ord,
          ].map((value, i) => dialect.encode((HISTORY_COLUMNS[i] as InsertColumn).kind, value));
        });
        yield* wait(dialect.insertMany(sql, dialect.historyTable, HISTORY_COLUMNS, values));
      }
    })(),
  );
}

/** A selected history row as its {@link HistoryEvent}. */
export function historyFromRow(row: HistoryRow, dialect: SqlDialect): HistoryEvent {
  return {
    id: row.id,
    tenant: row.tenant,
    memoryId: row.memory_id,
    kind: row.kind as HistoryEventKind,
    at: row.at,
    before: dialect.json(row.before) as MemorySnapshot | null,
    after: dialect.json(row.after) as MemorySnapshot | null,
    cause: dialect.json(row.cause) as HistoryCause,
    caller: dialect.json(row.caller) as HistoryCaller,
    sourceTurnIds: (dialect.json(row.source_turn_ids) as string[] | null) ?? [],
  };
}

/** Options of a history page. */
export interface HistoryPageOptions {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** Largest page of history events. */
export const MAX_HISTORY_PAGE = 1000;

/**
 * A page of events from rows read with `LIMIT limit + 1`: the extra row only says there is a next
 * page, whose cursor `cursorOf` makes of this page's last row.
 */
function historyRowsPage(
  rows: Maybe<HistoryRow[]>,
  dialect: SqlDialect,
  limit: number,
  cursorOf: (last: HistoryRow) => string,
): Maybe<FormationPage<HistoryEvent>> {
  return steps(
    (function* () {
      const found = yield* wait(rows);
      const page = found.slice(0, limit);
      const last = page[page.length - 1];
      return {
        items: page.map((row) => historyFromRow(row, dialect)),
        nextCursor: found.length > limit && last !== undefined ? cursorOf(last) : null,
      };
    })(),
  );
}

function decodeCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const n = typeof cursor === 'string' && /^h[0-9]+$/.test(cursor) ? Number(cursor.slice(1)) : Number.NaN;
  if (!Number.isSafeInteger(n)) throw new EngramError('INVALID_INPUT', 'invalid history cursor');
  return n;
}

/** One page of a memory's events, oldest first; the cursor is the last event's number. */
export function historyPage(
  sql: SqlQueries,
  dialect: SqlDialect,
  tenant: string,
  memoryId: string,
  options: HistoryPageOptions = {},
): Maybe<FormationPage<HistoryEvent>> {
  const limit = options.limit ?? 100;
  assertLimit(limit, MAX_HISTORY_PAGE);
  const after = decodeCursor(options.cursor);
  const params = dialect.params();
  const rows = sql.all<HistoryRow>(
    `SELECT ${HISTORY_SELECT} FROM ${dialect.historyTable} h
     WHERE h.tenant = ${params.add(tenant)} AND h.memory_id = ${params.add(memoryId)} AND h.n > ${params.add(after)}
     ORDER BY h.n LIMIT ${params.add(limit + 1)}`,
    params.values,
  );
  return historyRowsPage(rows, dialect, limit, (last) => `h${Number(last.n)}`);
}

/** Every event of these memories, each memory's oldest first. */
export function historyOf(
  sql: SqlQueries,
  dialect: SqlDialect,
  tenant: string,
  memoryIds: readonly string[],
): Maybe<HistoryEvent[]> {
  if (memoryIds.length === 0) return [];
  const params = dialect.params();
  const rows = sql.all<HistoryRow>(
    `SELECT ${HISTORY_SELECT} FROM ${dialect.historyTable} h
     WHERE h.tenant = ${params.add(tenant)} AND ${dialect.anyOf('h.memory_id', [...new Set(memoryIds)], params)}
     ORDER BY ${dialect.sortKey('h.memory_id')}, h.n`,
    params.values,
  );
  return steps(
    (function* () {
      return (yield* wait(rows)).map((row) => historyFromRow(row, dialect));
    })(),
  );
}

function decodeOrphanCursor(cursor: string | undefined): [string, number] | null {
  if (cursor === undefined) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(String(cursor).slice(1), 'base64url').toString('utf8'));
    if (
      String(cursor).startsWith('o') &&
      Array.isArray(value) &&
      typeof value[0] === 'string' &&
      Number.isSafeInteger(value[1])
    )
      return [value[0], value[1] as number];
  } catch {
    // falls through
  }
  throw new EngramError('INVALID_INPUT', 'invalid history cursor');
}

/** Events of memories no longer stored, by memory and number, a page at a time. */
export function orphanHistoryPage(
  sql: SqlQueries,
  dialect: SqlDialect,
  tenant: string,
  options: HistoryPageOptions = {},
): Maybe<FormationPage<HistoryEvent>> {
  const limit = options.limit ?? 500;
  assertLimit(limit, MAX_HISTORY_PAGE);
  const after = decodeOrphanCursor(options.cursor);
  const params = dialect.params();
  const t = params.add(tenant);
  const keyset =
    after === null
      ? ''
      : ` AND (${dialect.sortKey('h.memory_id')} > ${dialect.sortKey(params.add(after[0]))} OR (h.memory_id = ${params.add(after[0])} AND h.n > ${params.add(after[1])}))`;
  const rows = sql.all<HistoryRow>(
    `SELECT ${HISTORY_SELECT} FROM ${dialect.historyTable} h
     WHERE h.tenant = ${t}${keyset}
       AND NOT EXISTS (SELECT 1 FROM ${dialect.table} m WHERE m.tenant = h.tenant AND m.id = h.memory_id)
     ORDER BY ${dialect.sortKey('h.memory_id')}, h.n LIMIT ${params.add(limit + 1)}`,
    params.values,
  );
  return historyRowsPage(
    rows,
    dialect,
    limit,
    (last) => `o${Buffer.from(JSON.stringify([last.memory_id, Number(last.n)])).toString('base64url')}`,
  );
}

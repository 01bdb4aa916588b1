import type { HistoryEvent, HistoryEventKind } from '../../model/formation/history.js';
import type { Memory } from '../../model/memory.js';
import { canonicalInstant } from '../instant.js';
import { MEMORY_SELECT, type SelectedMemory } from '../memory-from-columns.js';
import type { MemoryRecord, StorePatch, StoreVector, WriteContext } from '../memory-store.js';
import { appendHistory, recordSnapshot, snapshotOf, writeEvent, type NewHistoryEvent } from './history-rows.js';
import { steps, wait, type Maybe } from './maybe-async.js';
import type { RowPatch } from './memory-columns.js';
import type { SqlQueries } from './query-runner.js';
import type { SqlEngine } from './sql-engine.js';

/**
 * The plain writes of the memory API with their history, each inside the transaction the engine
 * opened for it: the row change and one event per changed memory commit together or not at all.
 */

/** Fields whose change is a change of the memory (its version moves); usage and the vector are not. */
const CONTENT_FIELDS = [
  'text',
  'type',
  'key',
  'tags',
  'level',
  'summary',
  'background',
  'status',
  'sources',
  'metadata',
  'statedAt',
  'validFrom',
  'validTo',
  'supersededBy',
] as const satisfies ReadonlyArray<keyof Memory>;

function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Rows of the tenant with these ids, locked for the rest of the transaction where the engine locks rows. */
export function lockedRows(
  engine: SqlEngine,
  sql: SqlQueries,
  tenant: string,
  ids: readonly string[],
): Maybe<SelectedMemory[]> {
  const { dialect } = engine;
  const params = dialect.params();
  const where = `m.tenant = ${params.add(tenant)} AND ${dialect.anyOf('m.id', [...new Set(ids)], params)}`;
  return sql.all<SelectedMemory>(
    `SELECT ${MEMORY_SELECT} FROM ${dialect.table} m WHERE ${where} ORDER BY m.id${dialect.forUpdate}`,
    params.values,
  );
}

/**
 * Inserts records with a `created` event each (or the context's kind), or, restoring an export,
 * with the events they had.
 */
export function insertWithHistory(
  engine: SqlEngine,
  sql: SqlQueries,
  records: MemoryRecord[],
  context: WriteContext | undefined,
): Maybe<void> {
  const restored = context?.history ?? [];
  const kind: HistoryEventKind = context?.kind ?? 'created';
  const withPast = new Set(restored.map((e) => `${e.tenant}\u0000${e.memoryId}`));
  const events: NewHistoryEvent[] = [
    ...restored,
    ...records
      .filter((r) => !withPast.has(`${r.scope.tenant}\u0000${r.id}`))
      .map((r) =>
        writeEvent(
          kind,
          { tenant: r.scope.tenant, id: r.id },
          { before: null, after: recordSnapshot(r) },
          context,
          'insert',
          r.updatedAt,
          () => engine.newId(),
        ),
      ),
  ];
  return steps(
    (function* () {
      if (records.length > 0) yield* wait(engine.insertRows(sql, records));
      yield* wait(appendHistory(sql, engine.dialect, events));
    })(),
  );
}

/** A patch with what it moves besides: the version (a change of content or status) and a derived validity. */
function plannedPatch(before: Memory, patch: StorePatch): RowPatch {
  const next: RowPatch = { ...patch };
  if (patch.statedAt !== undefined) {
    // A memory whose validity was only ever read from statedAt follows it.
    const derived = canonicalInstant(before.statedAt ?? before.createdAt);
    if (canonicalInstant(before.validFrom) === derived)
      next.validFrom = canonicalInstant(patch.statedAt ?? before.createdAt);
  }
  const after: Memory = { ...before, ...definedFields(next) };
  if (CONTENT_FIELDS.some((field) => !sameValue(before[field], after[field]))) next.version = before.version + 1;
  return next;
}

function definedFields(patch: RowPatch): Partial<Memory> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) if (value !== undefined) out[field] = value;
  return out as Partial<Memory>;
}

/** The kind of event an update is: a status move, a new vector alone, or any other change. */
function updateKind(before: Memory, after: Memory, vector: StoreVector | undefined): HistoryEventKind {
  if (before.status !== after.status) {
    if (after.status === 'archived') return 'archived';
    if (after.status === 'deleted') return 'deleted';
    return 'restored';
  }
  if (before.version === after.version && vector !== undefined) return 're-embedded';
  return 'updated';
}

/** Applies a patch (and vector) to one row with its event; null when the row does not exist. */
export function updateWithHistory(
  engine: SqlEngine,
  sql: SqlQueries,
  change: { tenant: string; id: string; patch: StorePatch; vector: StoreVector | undefined },
  context: WriteContext | undefined,
): Maybe<SelectedMemory | null> {
  const { dialect } = engine;
  return steps(
    (function* () {
      const [row] = yield* wait(lockedRows(engine, sql, change.tenant, [change.id]));
      if (row === undefined) return null;
      const before = dialect.toMemory(row);
      const patch = plannedPatch(before, change.patch);
      const updated = yield* wait(engine.updateRow(sql, { ...change, patch }));
      if (updated === null) return null;
      const after = dialect.toMemory(updated);
      const event = writeEvent(
        updateKind(before, after, change.vector),
        { tenant: change.tenant, id: change.id },
        { before: snapshotOf(before), after: snapshotOf(after) },
        context,
        'update',
        change.patch.updatedAt,
        () => engine.newId(),
      );
      yield* wait(appendHistory(sql, dialect, [event]));
      return updated;
    })(),
  );
}

/** Hard-deletes rows with a `deleted` event each (the events stay); how many rows were removed. */
export function deleteWithHistory(
  engine: SqlEngine,
  sql: SqlQueries,
  tenant: string,
  ids: string[],
  context: WriteContext | undefined,
): Maybe<number> {
  const { dialect } = engine;
  return steps(
    (function* () {
      const rows = yield* wait(lockedRows(engine, sql, tenant, ids));
      if (rows.length === 0) return 0;
      const removed = yield* wait(
        engine.deleteRows(
          sql,
          tenant,
          rows.map((r) => r.id),
        ),
      );
      const at = engine.now();
      const events: HistoryEvent[] = rows.map((row) =>
        writeEvent(
          'deleted',
          { tenant, id: row.id },
          { before: snapshotOf(dialect.toMemory(row)), after: null },
          context,
          'delete',
          at,
          () => engine.newId(),
        ),
      );
      yield* wait(appendHistory(sql, dialect, events));
      return removed;
    })(),
  );
}

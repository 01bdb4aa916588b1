import { EngramError } from '../../model/errors.js';
import { applyOperations, type StoredMemory } from '../../model/formation/apply-operations.js';
import type { ApplyContext, ApplyResult, OperationVector } from '../../model/formation/formation-store.js';
import type { FormationOp } from '../../model/formation/operations.js';
import type { FormationJob } from '../../model/formation/work-queue.js';
import type { Memory } from '../../model/memory.js';
import { canonicalInstant, canonicalOrNull } from '../instant.js';
import { assertMemoryFields, assertRecord, assertScope, assertTenant, assertVector } from '../record-validation.js';
import {
  appendHistory,
  HISTORY_SELECT,
  historyFromRow,
  type HistoryRow,
  type NewHistoryEvent,
} from './history-rows.js';
import { assertStorableJson } from '../text-check.js';
import { instantArgument, JOB_SELECT, textArgument, type JobRow } from './job-rows.js';
import { steps, wait, type Maybe } from './maybe-async.js';
import type { RowPatch, StoredRecord } from './memory-columns.js';
import { lockedRows } from './memory-writes.js';
import type { SqlQueries } from './query-runner.js';
import type { SqlEngine } from './sql-engine.js';
import { distinctSpaces } from './embedding-spaces.js';

/** The job a window completes: its id, the worker holding its lease, and what the run cost. */
export interface WindowJob {
  id: string;
  owner: string;
  result: NonNullable<FormationJob['result']>;
}

/** The ids a window's operations read: every target, successor and added id. */
function touchedIds(operations: FormationOp[]): string[] {
  const ids = operations.flatMap((op) =>
    op.op === 'add' ? [op.memory.id] : op.op === 'supersede' ? [op.id, op.successorId] : [op.id],
  );
  return [...new Set(ids)];
}

/** Arguments checked before anything is read: shapes, the scope's tenant, storable added memories, vectors. */
function assertWindow(
  job: WindowJob,
  operations: FormationOp[],
  vectors: Map<string, OperationVector>,
  context: ApplyContext,
): void {
  if (job === null || typeof job !== 'object') throw new EngramError('INVALID_INPUT', 'job must be an object');
  textArgument(job.id, 'job.id');
  textArgument(job.owner, 'job.owner');
  if (job.result === null || typeof job.result !== 'object')
    throw new EngramError('INVALID_INPUT', 'job.result must be an object');
  if (!Array.isArray(operations)) throw new EngramError('INVALID_INPUT', 'operations must be an array');
  if (!(vectors instanceof Map)) throw new EngramError('INVALID_INPUT', 'vectors must be a Map by memory id');
  assertTenant(context?.tenant);
  assertScope(context.scope);
  if (context.scope.tenant !== context.tenant)
    throw new EngramError('INVALID_INPUT', 'context.scope must be of context.tenant');
  instantArgument(context.at, 'context.at');
  for (const [id, v] of vectors) assertVector(v.vector, v.embedding, id);
  for (const op of operations) {
    if (op?.op === 'add') {
      assertRecord({
        ...op.memory,
        scope: context.scope,
        createdAt: context.at,
        updatedAt: context.at,
        level: null,
        summary: null,
        background: null,
        status: 'activated',
        embedding: null,
        vector: null,
      });
    } else if (op?.op === 'update' || op?.op === 'attach-evidence' || op?.op === 'supersede') {
      textArgument(op.id, 'operation.id');
      if (op.op === 'update') assertMemoryFields({ ...op.patch, sources: op.addSources }, op.id);
      if (op.op === 'attach-evidence') assertMemoryFields({ sources: op.addSources }, op.id);
      if (op.op !== 'supersede' && op.safety !== undefined) assertStorableJson(op.safety, 'operation.safety');
      if (op.op === 'supersede') {
        textArgument(op.successorId, 'operation.successorId');
        instantArgument(op.validTo, 'operation.validTo');
      }
    } else {
      throw new EngramError('INVALID_INPUT', `unknown operation ${String((op as { op?: unknown })?.op)}`);
    }
    if (!Array.isArray(op.sourceTurnIds) || op.sourceTurnIds.some((id) => typeof id !== 'string'))
      throw new EngramError('INVALID_INPUT', 'operation.sourceTurnIds must be an array of strings');
    assertStorableJson(op.sourceTurnIds, 'sourceTurnIds');
  }
}

/** A memory whose text changed while it had a vector needs a new one: its old vector would lie. */
function assertVectorsFollowText(
  before: ReadonlyMap<string, StoredMemory>,
  operations: FormationOp[],
  vectors: Map<string, OperationVector>,
): void {
  for (const op of operations) {
    if (op.op !== 'update' || op.patch.text === undefined) continue;
    const memory = before.get(op.id);
    if (memory !== undefined && memory.embedding !== null && memory.text !== op.patch.text && !vectors.has(op.id)) {
      throw new EngramError('INVALID_INPUT', `memory ${op.id} gets a new text without a new vector`, {
        details: { id: op.id },
      });
    }
  }
}

/** The operations with their world times in the stored form, so events and rows agree with each other. */
function canonicalTimes(operations: FormationOp[]): FormationOp[] {
  return operations.map((op) => {
    if (op.op === 'supersede') return { ...op, validTo: canonicalInstant(op.validTo) };
    if (op.op !== 'add') return op;
    const { validFrom, validTo } = op.memory;
    return {
      ...op,
      memory: { ...op.memory, validFrom: canonicalInstant(validFrom), validTo: canonicalOrNull(validTo) },
    };
  });
}

/** The row of a memory formation added, as the engine inserts it. */
function addedRecord(memory: StoredMemory, vector: OperationVector | undefined): StoredRecord {
  const { usage: _usage, ...rest } = memory;
  return { ...rest, embedding: vector ? vector.embedding : null, vector: vector ? vector.vector : null };
}

/** The change that turns `before` into `after` (every field formation may move). */
function changeOf(before: Memory, after: StoredMemory): RowPatch {
  const patch: RowPatch = { updatedAt: after.updatedAt, version: after.version };
  if (after.text !== before.text) patch.text = after.text;
  if (after.key !== before.key) patch.key = after.key;
  if (JSON.stringify(after.tags) !== JSON.stringify(before.tags)) patch.tags = after.tags;
  if (JSON.stringify(after.sources) !== JSON.stringify(before.sources)) patch.sources = after.sources;
  // The write guard's report on what the operation wrote (`metadata.engramSafety`).
  if (JSON.stringify(after.metadata) !== JSON.stringify(before.metadata)) patch.metadata = after.metadata;
  if (after.validTo !== before.validTo) patch.validTo = canonicalOrNull(after.validTo);
  if (after.supersededBy !== before.supersededBy) patch.supersededBy = after.supersededBy;
  return patch;
}

/**
 * Formation's window transaction: lease still held, the operations applied in order with the
 * reference semantics (`applyOperations`, run over the rows read and locked here), one history
 * event per change, the job succeeded with its result — all in one transaction, or nothing.
 */
export function completeWindow(
  engine: SqlEngine,
  job: WindowJob,
  operations: FormationOp[],
  vectors: Map<string, OperationVector>,
  context: ApplyContext,
): Promise<ApplyResult> {
  return engine.guard('completeWindow', () => {
    assertWindow(job, operations, vectors, context);
    const ops = canonicalTimes(operations);
    const spaces = distinctSpaces([...vectors.values()].map((v) => v.embedding));
    const run = (sql: SqlQueries): Maybe<{ result: ApplyResult; written: number }> =>
      applyWindow(engine, sql, job, ops, vectors, context);
    return steps(
      (function* () {
        yield* wait(engine.prepareVectors(spaces));
        const { result, written } = yield* wait(engine.runner.transaction('completeWindow', run));
        if (written > 0) engine.afterWrite('update', written);
        return result;
      })(),
    );
  });
}

function applyWindow(
  engine: SqlEngine,
  sql: SqlQueries,
  job: WindowJob,
  operations: FormationOp[],
  vectors: Map<string, OperationVector>,
  context: ApplyContext,
): Maybe<{ result: ApplyResult; written: number }> {
  const { dialect } = engine;
  return steps(
    (function* () {
      const p = dialect.params();
      const [row] = yield* wait(
        sql.all<JobRow>(
          `SELECT ${JOB_SELECT} FROM ${dialect.jobsTable} j WHERE j.tenant = ${p.add(context.tenant)} AND j.id = ${p.add(job.id)}${dialect.forUpdate}`,
          p.values,
        ),
      );
      if (row === undefined)
        throw new EngramError('NOT_FOUND', `no job ${job.id} in tenant ${context.tenant}`, { details: { id: job.id } });
      if (row.state === 'succeeded')
        return { result: yield* wait(replay(engine, sql, context.tenant, job.id)), written: 0 };
      if (row.state !== 'running' || row.lease_owner !== job.owner) {
        throw new EngramError('CONFLICT', `job ${job.id} is no longer leased by ${job.owner}`, {
          details: { id: job.id, state: row.state },
          isRetryable: true,
        });
      }
      const rows = yield* wait(lockedRows(engine, sql, context.tenant, touchedIds(operations)));
      const before = new Map<string, StoredMemory>(rows.map((r) => [r.id, dialect.toMemory(r)]));
      assertVectorsFollowText(before, operations, vectors);
      const applied = applyOperations(before, operations, context, engine.newId, vectors);
      const changed = [...new Set(applied.history.map((e) => e.memoryId))];
      const added = changed.filter((id) => !before.has(id));
      if (added.length > 0)
        yield* wait(
          engine.insertRows(
            sql,
            added.map((id) => addedRecord(applied.state.get(id) as StoredMemory, vectors.get(id))),
          ),
        );
      for (const id of changed) {
        if (!before.has(id)) continue;
        const patch = changeOf(before.get(id) as Memory, applied.state.get(id) as StoredMemory);
        const vector = vectors.get(id);
        yield* wait(engine.updateRow(sql, { tenant: context.tenant, id, patch, vector }));
      }
      const events: NewHistoryEvent[] = applied.history.map((e) => ({ ...e, jobId: job.id }));
      yield* wait(appendHistory(sql, dialect, events));
      const u = dialect.params();
      yield* wait(
        sql.run(
          `UPDATE ${dialect.jobsTable} SET state = 'succeeded', result = ${dialect.valueSql('json', u.add(dialect.encode('json', job.result)))},
           lease_owner = NULL, lease_until = NULL, updated_at = ${u.add(context.at)}, finished_at = ${u.add(context.at)}
           WHERE tenant = ${u.add(context.tenant)} AND id = ${u.add(job.id)}`,
          u.values,
        ),
      );
      const after = yield* wait(lockedRows(engine, sql, context.tenant, changed));
      const memories = changed.flatMap((id) => after.filter((r) => r.id === id).map((r) => dialect.toMemory(r)));
      return { result: { memories, history: applied.history }, written: changed.length };
    })(),
  );
}

/** A completed job's result again: the events it recorded (in their order) and those memories now. */
function replay(engine: SqlEngine, sql: SqlQueries, tenant: string, jobId: string): Maybe<ApplyResult> {
  const { dialect } = engine;
  return steps(
    (function* () {
      const p = dialect.params();
      const rows = yield* wait(
        sql.all<HistoryRow>(
          `SELECT ${HISTORY_SELECT} FROM ${dialect.historyTable} h WHERE h.tenant = ${p.add(tenant)} AND h.job_id = ${p.add(jobId)} ORDER BY h.ord`,
          p.values,
        ),
      );
      const history = rows.map((r) => historyFromRow(r, dialect));
      const ids = [...new Set(history.map((e) => e.memoryId))];
      const found = ids.length === 0 ? [] : yield* wait(lockedRows(engine, sql, tenant, ids));
      const memories = ids.flatMap((id) => found.filter((r) => r.id === id).map((r) => dialect.toMemory(r)));
      return { memories, history };
    })(),
  );
}

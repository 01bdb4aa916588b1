import { EngramError } from '../../model/errors.js';
import type { Scope } from '../../model/scope.js';
import {
  DEFAULT_MAX_ATTEMPTS,
  JOB_STATES,
  type FormationJob,
  type JobState,
  type NewFormationJob,
} from '../../model/formation/work-queue.js';
import { canonicalInstant } from '../instant.js';
import { assertScope, assertTenant } from '../record-validation.js';
import { assertStorableText } from '../text-check.js';
import { steps, wait, type Maybe } from './maybe-async.js';
import type { SqlQueries } from './query-runner.js';
import type { ColumnKind, SqlDialect } from './sql-dialect.js';

/** The select list of a job row (alias `j`). */
export const JOB_SELECT = [
  'tenant',
  'id',
  'idempotency_key',
  'scope',
  'extractor_name',
  'extractor_version',
  'episode_ids',
  'session_id',
  'tz_offset_minutes',
  'state',
  'attempts',
  'max_attempts',
  'next_run_at',
  'lease_owner',
  'lease_until',
  'last_error',
  'result',
  'created_at',
  'updated_at',
  'finished_at',
]
  .map((c) => `j.${c} AS ${c}`)
  .join(', ');

/** A job row as selected. */
export interface JobRow {
  tenant: string;
  id: string;
  idempotency_key: string;
  scope: unknown;
  extractor_name: string;
  extractor_version: string;
  episode_ids: unknown;
  session_id: string | null;
  tz_offset_minutes: number;
  state: string;
  attempts: number;
  max_attempts: number;
  next_run_at: string;
  lease_owner: string | null;
  lease_until: string | null;
  last_error: unknown;
  result: unknown;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** A selected job row as its {@link FormationJob}. */
export function jobFromRow(row: JobRow, dialect: SqlDialect): FormationJob {
  return {
    id: row.id,
    tenant: row.tenant,
    scope: dialect.json(row.scope) as Scope,
    idempotencyKey: row.idempotency_key,
    extractor: { name: row.extractor_name, version: row.extractor_version },
    episodeIds: dialect.json(row.episode_ids) as string[],
    session: row.session_id,
    timezoneOffsetMinutes: Number(row.tz_offset_minutes),
    state: row.state as JobState,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    nextRunAt: row.next_run_at,
    lease:
      row.lease_owner !== null && row.lease_until !== null ? { owner: row.lease_owner, until: row.lease_until } : null,
    lastError: dialect.json(row.last_error) as FormationJob['lastError'],
    result: dialect.json(row.result) as FormationJob['result'],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}

function invalid(message: string, field: string): EngramError {
  return new EngramError('INVALID_INPUT', message, { details: { field } });
}

/** Checks a timestamp argument and returns it in the stored form. */
export function instantArgument(value: unknown, field: string): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
    throw invalid(`${field} must be an ISO-8601 timestamp`, field);
  return canonicalInstant(value);
}

/** Checks a non-empty storable string argument. */
export function textArgument(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw invalid(`${field} must be a non-empty string`, field);
  assertStorableText(value, field);
  return value;
}

/** Checks jobs to enqueue for one tenant (each job's scope must be of that tenant). */
export function assertNewJobs(tenant: string, jobs: NewFormationJob[]): void {
  assertTenant(tenant);
  if (!Array.isArray(jobs)) throw invalid('jobs must be an array', 'jobs');
  for (const job of jobs) {
    if (job === null || typeof job !== 'object') throw invalid('each job must be an object', 'jobs');
    assertScope(job.scope);
    if (job.scope.tenant !== tenant)
      throw invalid(`job scope is of tenant ${job.scope.tenant}, not ${tenant}`, 'scope');
    textArgument(job.idempotencyKey, 'idempotencyKey');
    textArgument(job.extractor?.name, 'extractor.name');
    textArgument(job.extractor?.version, 'extractor.version');
    if (!Array.isArray(job.episodeIds) || job.episodeIds.some((id) => typeof id !== 'string'))
      throw invalid('episodeIds must be an array of strings', 'episodeIds');
    for (const id of job.episodeIds) assertStorableText(id, 'episodeIds');
    if (job.session !== null && typeof job.session !== 'string')
      throw invalid('session must be a string or null', 'session');
    if (!Number.isInteger(job.timezoneOffsetMinutes))
      throw invalid('timezoneOffsetMinutes must be an integer', 'timezoneOffsetMinutes');
    if (job.maxAttempts !== undefined && (!Number.isInteger(job.maxAttempts) || job.maxAttempts < 1))
      throw invalid('maxAttempts must be a positive integer', 'maxAttempts');
  }
}

/** The columns of a new job and their kinds. */
const JOB_INSERT: ReadonlyArray<[string, ColumnKind]> = [
  ['tenant', 'text'],
  ['id', 'text'],
  ['idempotency_key', 'text'],
  ['scope', 'json'],
  ['extractor_name', 'text'],
  ['extractor_version', 'text'],
  ['episode_ids', 'json'],
  ['session_id', 'text'],
  ['tz_offset_minutes', 'int'],
  ['state', 'text'],
  ['attempts', 'int'],
  ['max_attempts', 'int'],
  ['next_run_at', 'text'],
  ['created_at', 'text'],
  ['updated_at', 'text'],
];

/**
 * Enqueues jobs inside the caller's transaction: insert-or-return by (tenant, idempotency key).
 * A concurrent enqueue of the same key waits for the other transaction (the unique constraint)
 * and then returns its job.
 */
export function enqueueJobs(
  sql: SqlQueries,
  dialect: SqlDialect,
  tenant: string,
  jobs: NewFormationJob[],
  at: string,
  newId: () => string,
): Maybe<Array<{ job: FormationJob; created: boolean }>> {
  return steps(
    (function* () {
      const out: Array<{ job: FormationJob; created: boolean }> = [];
      for (const job of jobs) {
        const params = dialect.params();
        const values = [
          tenant,
          newId(),
          job.idempotencyKey,
          job.scope,
          job.extractor.name,
          job.extractor.version,
          job.episodeIds,
          job.session,
          job.timezoneOffsetMinutes,
          'queued',
          0,
          job.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
          at,
          at,
          at,
        ].map((value, i) => {
          const kind = (JOB_INSERT[i] as [string, ColumnKind])[1];
          return dialect.valueSql(kind, params.add(dialect.encode(kind, value)));
        });
        const inserted = yield* wait(
          sql.run(
            `INSERT INTO ${dialect.jobsTable} (${JOB_INSERT.map(([c]) => c).join(', ')}) VALUES (${values.join(', ')})
             ON CONFLICT (tenant, idempotency_key) DO NOTHING`,
            params.values,
          ),
        );
        const read = dialect.params();
        const [row] = yield* wait(
          sql.all<JobRow>(
            `SELECT ${JOB_SELECT} FROM ${dialect.jobsTable} j WHERE j.tenant = ${read.add(tenant)} AND j.idempotency_key = ${read.add(job.idempotencyKey)}`,
            read.values,
          ),
        );
        if (row === undefined)
          throw new EngramError('STORE_ERROR', `job ${job.idempotencyKey} vanished while enqueued`);
        out.push({ job: jobFromRow(row, dialect), created: inserted > 0 });
      }
      return out;
    })(),
  );
}

/** Every state, counted 0 until seen. */
export function emptyCounts(): Record<JobState, number> {
  return Object.fromEntries(JOB_STATES.map((s) => [s, 0])) as Record<JobState, number>;
}

import { EngramError } from '../../model/errors.js';
import type { FormationPage } from '../../model/formation/history.js';
import {
  JOB_STATES,
  type ClaimOptions,
  type FormationJob,
  type JobError,
  type JobState,
  type NewFormationJob,
  type QueueStatus,
  type RetryDecision,
  type WorkQueue,
} from '../../model/formation/work-queue.js';
import { assertLimit, assertTenant } from '../record-validation.js';
import { assertStorableJson } from '../text-check.js';
import {
  assertNewJobs,
  emptyCounts,
  enqueueJobs,
  instantArgument,
  JOB_SELECT,
  jobFromRow,
  textArgument,
  type JobRow,
} from './job-rows.js';
import { andThen, steps, wait, type Maybe, type Steps } from './maybe-async.js';
import type { SqlQueries } from './query-runner.js';
import type { SqlParams } from './sql-dialect.js';
import type { SqlEngine } from './sql-engine.js';

/** Most jobs one claim or one list page may return. */
export const MAX_JOB_BATCH = 1000;

/** The lease a claim hands out. */
interface Lease {
  owner: string;
  now: string;
  until: string;
}

/** Jobs a worker may take at `now`: waiting and due, or running under a lease that has run out. */
function runnable(now: string, params: SqlParams): string {
  const t = params.add(now);
  return `((j.state IN ('queued', 'retrying') AND j.next_run_at <= ${t}) OR (j.state = 'running' AND j.lease_until <= ${params.add(now)}))`;
}

function assertJobError(error: JobError): void {
  if (error === null || typeof error !== 'object') throw new EngramError('INVALID_INPUT', 'error must be an object');
  textArgument(error.code, 'error.code');
  if (typeof error.message !== 'string') throw new EngramError('INVALID_INPUT', 'error.message must be a string');
  if (typeof error.retryable !== 'boolean') throw new EngramError('INVALID_INPUT', 'error.retryable must be a boolean');
  instantArgument(error.at, 'error.at');
  assertStorableJson(error, 'error');
}

function assertDecision(decision: RetryDecision): void {
  if (decision?.state === 'retrying') instantArgument(decision.nextRunAt, 'decision.nextRunAt');
  else if (decision?.state !== 'dead')
    throw new EngramError('INVALID_INPUT', "decision.state must be 'retrying' or 'dead'");
}

function encodeCursor(job: FormationJob): string {
  return `j${Buffer.from(JSON.stringify([job.createdAt, job.id])).toString('base64url')}`;
}

function decodeCursor(cursor: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor.slice(1), 'base64url').toString('utf8'));
    if (
      cursor.startsWith('j') &&
      Array.isArray(value) &&
      value.length === 2 &&
      value.every((v) => typeof v === 'string')
    )
      return value as [string, string];
  } catch {
    // falls through to the error below
  }
  throw new EngramError('INVALID_INPUT', 'invalid job list cursor');
}

/**
 * The durable work queue on the engine's `formation_jobs` table. Every statement of one tenant
 * leads with `tenant = …`. A claim without a tenant (the worker's) fans out by design: it first
 * reads which tenants have runnable jobs (on Citus a multi-shard read, without locks), then
 * claims per tenant with single-tenant statements (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite
 * holds its one write lock for the whole claim).
 */
export class SqlWorkQueue implements WorkQueue {
  constructor(private readonly engine: SqlEngine) {}

  enqueue(
    tenant: string,
    jobs: NewFormationJob[],
    at: string,
  ): Promise<Array<{ job: FormationJob; created: boolean }>> {
    return this.engine.guard('enqueue', () => {
      assertNewJobs(tenant, jobs);
      const when = instantArgument(at, 'at');
      if (jobs.length === 0) return [];
      return this.engine.runner.transaction('enqueue', (sql) =>
        enqueueJobs(sql, this.engine.dialect, tenant, jobs, when, this.engine.newId),
      );
    });
  }

  claim(options: ClaimOptions): Promise<FormationJob[]> {
    return this.engine.guard('claim', () => {
      const owner = textArgument(options?.owner, 'owner');
      assertLimit(options.limit, MAX_JOB_BATCH);
      const now = instantArgument(options.now, 'now');
      if (!Number.isFinite(options.leaseMs) || options.leaseMs <= 0)
        throw new EngramError('INVALID_INPUT', 'leaseMs must be a positive number', { details: { field: 'leaseMs' } });
      if (options.tenant !== undefined) assertTenant(options.tenant);
      const until = new Date(Date.parse(now) + options.leaseMs).toISOString();
      const lease = { owner, now, until };
      return this.engine.runner.transaction('claim', (sql) =>
        steps(this.claimIn(sql, options.limit, options.tenant, lease)),
      );
    });
  }

  private *claimIn(sql: SqlQueries, limit: number, tenant: string | undefined, lease: Lease): Steps<FormationJob[]> {
    const { dialect } = this.engine;
    let tenants = tenant === undefined ? [] : [tenant];
    if (tenant === undefined) {
      const params = dialect.params();
      const rows = yield* wait(
        sql.all<{ tenant: string }>(
          `SELECT j.tenant AS tenant, min(j.next_run_at) AS due FROM ${dialect.jobsTable} j
           WHERE ${runnable(lease.now, params)} GROUP BY j.tenant ORDER BY due, j.tenant LIMIT ${params.add(limit)}`,
          params.values,
        ),
      );
      tenants = rows.map((r) => r.tenant);
    }
    const claimed: FormationJob[] = [];
    for (const t of tenants) {
      if (claimed.length >= limit) break;
      claimed.push(...(yield* wait(this.claimTenant(sql, t, limit - claimed.length, lease))));
    }
    return claimed;
  }

  /**
   * Leases a tenant's runnable jobs. A job whose lease ran out after its last allowed attempt (its
   * worker died on it every time) is dead-lettered instead of run again.
   */
  private claimTenant(sql: SqlQueries, tenant: string, limit: number, lease: Lease): Maybe<FormationJob[]> {
    const { dialect } = this.engine;
    return steps(
      (function* () {
        const params = dialect.params();
        const rows = yield* wait(
          sql.all<JobRow>(
            `SELECT ${JOB_SELECT} FROM ${dialect.jobsTable} j WHERE j.tenant = ${params.add(tenant)} AND ${runnable(lease.now, params)}
             ORDER BY j.next_run_at, j.id LIMIT ${params.add(limit)}${dialect.skipLocked}`,
            params.values,
          ),
        );
        const out: FormationJob[] = [];
        for (const row of rows) {
          const p = dialect.params();
          // Placeholders are bound in the order they appear (SQLite's `?`): the key comes last.
          const where = (): string => `tenant = ${p.add(tenant)} AND id = ${p.add(row.id)}`;
          if (row.state === 'running' && Number(row.attempts) >= Number(row.max_attempts)) {
            const error = {
              code: 'LEASE_EXPIRED',
              message: `the worker holding it lost its lease on each of ${row.attempts} attempts`,
              retryable: false,
              at: lease.now,
            };
            yield* wait(
              sql.run(
                `UPDATE ${dialect.jobsTable} SET state = 'dead', lease_owner = NULL, lease_until = NULL,
                 last_error = ${dialect.valueSql('json', p.add(dialect.encode('json', error)))}, updated_at = ${p.add(lease.now)},
                 finished_at = ${p.add(lease.now)} WHERE ${where()}`,
                p.values,
              ),
            );
            continue;
          }
          yield* wait(
            sql.run(
              `UPDATE ${dialect.jobsTable} SET state = 'running', attempts = attempts + 1, lease_owner = ${p.add(lease.owner)},
               lease_until = ${p.add(lease.until)}, updated_at = ${p.add(lease.now)} WHERE ${where()}`,
              p.values,
            ),
          );
          const job = jobFromRow(row, dialect);
          out.push({
            ...job,
            state: 'running',
            attempts: job.attempts + 1,
            lease: { owner: lease.owner, until: lease.until },
            updatedAt: lease.now,
          });
        }
        return out;
      })(),
    );
  }

  renew(tenant: string, jobId: string, owner: string, until: string): Promise<boolean> {
    return this.engine.guard('renew', () => {
      assertTenant(tenant);
      const id = textArgument(jobId, 'jobId');
      const holder = textArgument(owner, 'owner');
      const end = instantArgument(until, 'until');
      const { dialect } = this.engine;
      const p = dialect.params();
      const sql = `UPDATE ${dialect.jobsTable} SET lease_until = ${p.add(end)}
        WHERE tenant = ${p.add(tenant)} AND id = ${p.add(id)} AND state = 'running' AND lease_owner = ${p.add(holder)}`;
      return andThen(
        this.engine.runner.transaction('renew', (q) => q.run(sql, p.values)),
        (changed) => changed > 0,
      );
    });
  }

  fail(tenant: string, jobId: string, owner: string, error: JobError, decision: RetryDecision): Promise<boolean> {
    return this.engine.guard('fail', () => {
      assertTenant(tenant);
      const id = textArgument(jobId, 'jobId');
      const holder = textArgument(owner, 'owner');
      assertJobError(error);
      assertDecision(decision);
      const { dialect } = this.engine;
      const at = instantArgument(error.at, 'error.at');
      const p = dialect.params();
      const next = (): string =>
        decision.state === 'retrying' ? p.add(instantArgument(decision.nextRunAt, 'nextRunAt')) : 'next_run_at';
      const sql = `UPDATE ${dialect.jobsTable} SET state = ${p.add(decision.state)}, next_run_at = ${next()},
        last_error = ${dialect.valueSql('json', p.add(dialect.encode('json', error)))}, lease_owner = NULL, lease_until = NULL,
        updated_at = ${p.add(at)}, finished_at = ${decision.state === 'dead' ? p.add(at) : 'NULL'}
        WHERE tenant = ${p.add(tenant)} AND id = ${p.add(id)} AND state = 'running' AND lease_owner = ${p.add(holder)}`;
      return andThen(
        this.engine.runner.transaction('fail', (q) => q.run(sql, p.values)),
        (changed) => changed > 0,
      );
    });
  }

  requeue(tenant: string, jobId: string, at: string): Promise<FormationJob> {
    return this.engine.guard('requeue', () => {
      assertTenant(tenant);
      const id = textArgument(jobId, 'jobId');
      const when = instantArgument(at, 'at');
      const { dialect } = this.engine;
      return this.engine.runner.transaction('requeue', (sql) =>
        steps(
          (function* () {
            const p = dialect.params();
            const changed = yield* wait(
              sql.run(
                `UPDATE ${dialect.jobsTable} SET state = 'queued', attempts = 0, next_run_at = ${p.add(when)}, updated_at = ${p.add(when)},
                 finished_at = NULL, lease_owner = NULL, lease_until = NULL
                 WHERE tenant = ${p.add(tenant)} AND id = ${p.add(id)} AND state = 'dead'`,
                p.values,
              ),
            );
            if (changed === 0)
              throw new EngramError('NOT_FOUND', `no dead job ${id} in tenant ${tenant}`, { details: { id } });
            const r = dialect.params();
            const [row] = yield* wait(
              sql.all<JobRow>(
                `SELECT ${JOB_SELECT} FROM ${dialect.jobsTable} j WHERE j.tenant = ${r.add(tenant)} AND j.id = ${r.add(id)}`,
                r.values,
              ),
            );
            return jobFromRow(row as JobRow, dialect);
          })(),
        ),
      );
    });
  }

  status(tenant: string): Promise<QueueStatus> {
    return this.engine.guard('status', () => {
      assertTenant(tenant);
      const { dialect } = this.engine;
      return this.engine.runner.read('status', (sql) =>
        steps(
          (function* () {
            const p = dialect.params();
            const rows = yield* wait(
              sql.all<{ state: string; n: number; waiting: string | null }>(
                `SELECT j.state AS state, ${dialect.countAll} AS n, min(j.next_run_at) AS waiting FROM ${dialect.jobsTable} j
                 WHERE j.tenant = ${p.add(tenant)} GROUP BY j.state`,
                p.values,
              ),
            );
            const counts = emptyCounts();
            let oldest: string | null = null;
            for (const row of rows) {
              counts[row.state as JobState] = Number(row.n);
              const waits = row.state === 'queued' || row.state === 'retrying';
              if (waits && row.waiting !== null && (oldest === null || row.waiting < oldest)) oldest = row.waiting;
            }
            return { counts, oldestWaitingSince: oldest };
          })(),
        ),
      );
    });
  }

  list(
    tenant: string,
    options: { states?: JobState[] | undefined; limit?: number | undefined; cursor?: string | undefined } = {},
  ): Promise<FormationPage<FormationJob>> {
    return this.engine.guard('listJobs', () => {
      assertTenant(tenant);
      const limit = options.limit ?? 50;
      assertLimit(limit, MAX_JOB_BATCH);
      const states = options.states;
      if (states !== undefined && (!Array.isArray(states) || states.some((s) => !JOB_STATES.includes(s))))
        throw new EngramError('INVALID_INPUT', `states must be a list of: ${JOB_STATES.join(', ')}`);
      const { dialect } = this.engine;
      const p = dialect.params();
      const parts = [`j.tenant = ${p.add(tenant)}`];
      if (states !== undefined) parts.push(dialect.anyOf('j.state', states, p));
      if (options.cursor !== undefined) {
        const [createdAt, id] = decodeCursor(String(options.cursor));
        parts.push(
          `(${dialect.sortKey('j.created_at')}, ${dialect.sortKey('j.id')}) > (${dialect.sortKey(p.add(createdAt))}, ${dialect.sortKey(p.add(id))})`,
        );
      }
      const text = `SELECT ${JOB_SELECT} FROM ${dialect.jobsTable} j WHERE ${parts.join(' AND ')}
        ORDER BY ${dialect.sortKey('j.created_at')}, ${dialect.sortKey('j.id')} LIMIT ${p.add(limit + 1)}`;
      return this.engine.runner.read('listJobs', (sql) =>
        steps(
          (function* () {
            const rows = yield* wait(sql.all<JobRow>(text, p.values));
            const items = rows.slice(0, limit).map((row) => jobFromRow(row, dialect));
            const last = items[items.length - 1];
            return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last) : null };
          })(),
        ),
      );
    });
  }
}

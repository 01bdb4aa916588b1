import type { FormationPage, HistoryEvent, HistoryLog } from '../../model/formation/history.js';
import type {
  ApplyContext,
  ApplyResult,
  FormationStore,
  OperationVector,
} from '../../model/formation/formation-store.js';
import type { FormationOp } from '../../model/formation/operations.js';
import { EngramError } from '../../model/errors.js';
import { assertIds, assertTenant } from '../record-validation.js';
import { assertStorableJson } from '../text-check.js';
import { steps, wait } from './maybe-async.js';
import { completeWindow, type WindowJob } from './complete-window.js';
import { historyOf, historyPage, orphanHistoryPage, type HistoryPageOptions } from './history-rows.js';
import { textArgument } from './job-rows.js';
import type { SqlEngine } from './sql-engine.js';
import { SqlEpisodeStore } from './sql-episode-store.js';
import { SqlWorkQueue } from './sql-work-queue.js';

/** The history log of the engine's `memory_history` table. */
class SqlHistoryLog implements HistoryLog {
  constructor(private readonly engine: SqlEngine) {}

  list(tenant: string, memoryId: string, options?: HistoryPageOptions): Promise<FormationPage<HistoryEvent>> {
    return this.engine.guard('history', () => {
      assertTenant(tenant);
      const id = textArgument(memoryId, 'memoryId');
      return this.engine.runner.read('history', (sql) => historyPage(sql, this.engine.dialect, tenant, id, options));
    });
  }

  forMemories(tenant: string, memoryIds: string[]): Promise<HistoryEvent[]> {
    return this.engine.guard('history', () => {
      assertTenant(tenant);
      assertIds(memoryIds);
      return this.engine.runner.read('history', (sql) => historyOf(sql, this.engine.dialect, tenant, memoryIds));
    });
  }

  orphans(tenant: string, options?: HistoryPageOptions): Promise<FormationPage<HistoryEvent>> {
    return this.engine.guard('history', () => {
      assertTenant(tenant);
      return this.engine.runner.read('history', (sql) => orphanHistoryPage(sql, this.engine.dialect, tenant, options));
    });
  }

  redact(tenant: string, events: Array<Pick<HistoryEvent, 'id' | 'memoryId' | 'before' | 'after'>>): Promise<number> {
    return this.engine.guard('redactHistory', () => {
      assertTenant(tenant);
      if (!Array.isArray(events)) throw new EngramError('INVALID_INPUT', 'events must be an array');
      const { dialect } = this.engine;
      const statements = events.map((event) => {
        assertStorableJson([event.before, event.after], 'history');
        const p = dialect.params();
        const json = (value: unknown): string => dialect.valueSql('json', p.add(dialect.encode('json', value)));
        const sql = `UPDATE ${dialect.historyTable} SET before = ${json(event.before)}, after = ${json(event.after)}
          WHERE tenant = ${p.add(tenant)} AND memory_id = ${p.add(textArgument(event.memoryId, 'memoryId'))} AND id = ${p.add(textArgument(event.id, 'id'))}`;
        return { sql, values: p.values };
      });
      return this.engine.runner.transaction('redactHistory', (sql) =>
        steps(
          (function* () {
            let changed = 0;
            for (const s of statements) changed += yield* wait(sql.run(s.sql, s.values));
            return changed;
          })(),
        ),
      );
    });
  }
}

/**
 * Formation's storage on the SQL engine, over the same database and transactions as the
 * memories: episodes (rows of the memories table), the history log, the work queue, and the
 * window transaction. Every backend of the engine has it (`store.formation`).
 */
export class SqlFormationStore implements FormationStore {
  readonly episodes: SqlEpisodeStore;
  readonly queue: SqlWorkQueue;
  readonly history: HistoryLog;

  constructor(private readonly engine: SqlEngine) {
    this.episodes = new SqlEpisodeStore(engine);
    this.queue = new SqlWorkQueue(engine);
    this.history = new SqlHistoryLog(engine);
  }

  completeWindow(
    job: WindowJob,
    operations: FormationOp[],
    vectors: Map<string, OperationVector>,
    context: ApplyContext,
  ): Promise<ApplyResult> {
    return completeWindow(this.engine, job, operations, vectors, context);
  }
}

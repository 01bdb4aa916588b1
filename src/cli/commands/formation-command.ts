import type { Command } from 'commander';
import { EngramError } from '../../model/errors.js';
import { JOB_STATES, type JobState, type QueueStatus } from '../../formation/work-queue.js';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseLimit, parseList, parseNumber } from '../parse-option.js';
import { renderTable } from '../render-table.js';

/** `3 succeeded, 1 queued, 0 running, 0 retrying, 0 dead`. */
export function formatQueue(queue: QueueStatus): string {
  return JOB_STATES.map((s) => `${queue.counts[s]} ${s}`).join(', ');
}

function checkStates(states: string[] | undefined): JobState[] | undefined {
  if (states === undefined) return undefined;
  const bad = states.filter((s) => !(JOB_STATES as readonly string[]).includes(s));
  if (bad.length > 0) {
    throw new EngramError('INVALID_INPUT', `--state must be among: ${JOB_STATES.join(', ')}`, {
      details: { field: 'states', allowed: [...JOB_STATES] },
    });
  }
  return states as JobState[];
}

function registerStatus(formation: Command, globals: () => GlobalOptions): void {
  formation
    .command('status')
    .description('what is configured, the queue of the tenant, and the dead letters')
    .action(async () => {
      const options = globals();
      await withEngram(options, async (engram) => {
        const status = await engram.formationStatus({ scope: scopeOf(options) });
        if (options.json) {
          console.log(JSON.stringify(status, null, 2));
          return;
        }
        const extractor = status.extractor
          ? `${status.extractor.name}@${status.extractor.version} (${status.extractor.method})`
          : 'none (episodes only)';
        console.log(
          `extractor: ${extractor}\nconsolidator: ${status.consolidator.name}@${status.consolidator.version}`,
        );
        console.log(`llm: ${status.llm ?? 'none'}\nqueue: ${formatQueue(status.queue)}`);
        for (const job of status.dead)
          console.log(`dead ${job.id}: ${job.lastError?.code ?? ''} ${job.lastError?.message ?? ''}`);
      });
    });
}

function registerJobs(formation: Command, globals: () => GlobalOptions): void {
  formation
    .command('jobs')
    .description('list formation jobs of the tenant')
    .option('--state <list>', `comma-separated states (${JOB_STATES.join(', ')})`, parseList)
    .option('-k, --limit <n>', 'jobs per page', parseLimit)
    .option('--cursor <cursor>', 'the next page')
    .action(async (flags: { state?: string[]; limit?: number; cursor?: string }) => {
      const options = globals();
      const states = checkStates(flags.state);
      await withEngram(options, async (engram) => {
        const page = await engram.formationJobs({
          scope: scopeOf(options),
          states,
          limit: flags.limit,
          cursor: flags.cursor,
        });
        if (options.json) {
          console.log(JSON.stringify(page, null, 2));
          return;
        }
        console.log(
          renderTable(page.items, [
            { header: 'id', value: (j) => j.id },
            { header: 'state', value: (j) => j.state },
            { header: 'attempts', value: (j) => `${j.attempts}/${j.maxAttempts}`, align: 'right' },
            { header: 'turns', value: (j) => String(j.episodeIds.length), align: 'right' },
            { header: 'next run', value: (j) => j.nextRunAt.slice(0, 19) },
            { header: 'last error', value: (j) => (j.lastError ? `${j.lastError.code}: ${j.lastError.message}` : '') },
          ]),
        );
        if (page.nextCursor) console.log(`\nmore: --cursor ${page.nextCursor}`);
      });
    });
}

function registerRetry(formation: Command, globals: () => GlobalOptions): void {
  formation
    .command('retry')
    .description('move a dead job back to the queue')
    .argument('<job>', 'the job id')
    .action(async (jobId: string) => {
      const options = globals();
      await withEngram(options, async (engram) => {
        const job = await engram.requeueFormation(jobId, { scope: scopeOf(options) });
        console.log(options.json ? JSON.stringify(job, null, 2) : `requeued ${job.id}`);
      });
    });
}

function registerRun(formation: Command, globals: () => GlobalOptions): void {
  formation
    .command('run')
    .description('run the formation worker: until interrupted, or with --until-idle until the queue is empty')
    .option('--until-idle', 'exit once nothing of the tenant is waiting')
    .option('--timeout <ms>', 'with --until-idle: longest wait', parseNumber)
    .action(async (flags: { untilIdle?: boolean; timeout?: number }) => {
      const options = globals();
      await withEngram(
        options,
        async (engram) => {
          if (flags.untilIdle) {
            await engram.idle({ scope: scopeOf(options), timeoutMs: flags.timeout });
            return;
          }
          console.error('formation worker running; Ctrl-C or SIGTERM stops it after the running windows');
          await new Promise<void>((resolve) => {
            process.once('SIGINT', resolve);
            process.once('SIGTERM', resolve);
          });
        },
        { formationWorker: true },
      );
    });
}

/** `engram formation status | jobs | retry <job> | run`. */
export function registerFormation(program: Command, globals: () => GlobalOptions): void {
  const formation = program.command('formation').description('the background formation of facts from remembered turns');
  registerStatus(formation, globals);
  registerJobs(formation, globals);
  registerRetry(formation, globals);
  registerRun(formation, globals);
}

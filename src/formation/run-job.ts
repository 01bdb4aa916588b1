import { isEngramError } from '../model/errors.js';
import { consolidateWindow, extractWindow, type FormationDeps, type WindowOutcome } from './form-window.js';
import type { ApplyContext, ApplyResult, FormationStore } from './formation-store.js';
import { NO_USAGE } from './llm-usage.js';
import { factScope, windowOfJob } from './window-of-job.js';
import type { FormationJob, JobError } from './work-queue.js';
import { writeFormedWindow, type EmbedTexts, type FormationJobGuard } from './write-formed-window.js';

export type { EmbedTexts } from './write-formed-window.js';

/** What running one job needs. */
export interface RunJobDeps {
  store: FormationStore;
  formation: FormationDeps;
  embed: EmbedTexts;
  clock: () => Date;
  /**
   * Archives turns of a formed window (`formedTurns` `superseded` or `archive`, see `archive`), after the
   * window's transaction: a crash in between leaves them recallable, as `keep` does. @default keep them
   */
  archiveTurns?: ((tenant: string, episodeIds: string[], context: ApplyContext) => Promise<void>) | undefined;
  /**
   * Which turns `archiveTurns` gets: every turn the window's facts came from (`formed`), or the
   * turns of the facts the window superseded (`superseded`). @default 'superseded'
   */
  archive?: 'formed' | 'superseded' | undefined;
  /**
   * The write guard over what the LLMs proposed: the candidates of the extraction before they
   * are consolidated (prompt, neighbour search, embeddings), the operations before they are
   * written (see `writeFormedWindow`). @default none
   */
  guard?: FormationJobGuard | undefined;
}

/** What a succeeded job did. */
export interface JobRun {
  outcome: WindowOutcome | null;
  operations: number;
  /**
   * Why archiving the window's turns failed, after the commit that made the job succeeded: the
   * facts stand and the turns stay recallable (as with `formedTurns: 'keep'`). @default none
   */
  archiveError?: unknown;
}

/** The record every change of a job's window is written under. */
function contextOf(
  job: FormationJob,
  at: string,
  by: { extractor: string; consolidator: string; decidedBy: 'llm' | 'rules' },
): ApplyContext {
  return {
    tenant: job.tenant,
    scope: factScope(job.scope),
    at,
    cause: { type: 'formation', jobId: job.id, windowKey: job.idempotencyKey, ...by },
    caller: { kind: 'system', id: null },
  };
}

function decidedBy(outcome: WindowOutcome): { extractor: string; consolidator: string; decidedBy: 'llm' | 'rules' } {
  const { extractor } = outcome.extraction;
  const { consolidator, decisions } = outcome.consolidation;
  return {
    extractor: `${extractor.name}@${extractor.version}`,
    consolidator: `${consolidator.name}@${consolidator.version}`,
    decidedBy: decisions.some((d) => d.decidedBy === 'llm') ? 'llm' : 'rules',
  };
}

/** Runs `step` after the consolidation steps of the same fact scope started before it. */
export type InScopeOrder = <T>(step: () => Promise<T>) => Promise<T>;

/**
 * Forms one claimed job: loads its episodes and extracts the window (one LLM call, at any time),
 * then — in `inOrder`, after the windows of the same fact scope before it — finds neighbours with
 * recall, consolidates (one LLM call), embeds what the operations write, and applies it all in the
 * store's one transaction that also marks the job succeeded. A job whose episodes are all gone
 * completes with nothing to do. Rejects with the failure of whichever step failed; nothing is
 * written then (the transaction is all or nothing).
 */
export async function runJob(
  deps: RunJobDeps,
  job: FormationJob,
  owner: string,
  signal: AbortSignal,
  inOrder: InScopeOrder = (step) => step(),
): Promise<JobRun> {
  const episodes = await deps.store.episodes.getEpisodes(job.tenant, job.episodeIds);
  const window = windowOfJob(job, episodes);
  const extracted = window.turns.length === 0 ? null : await extractWindow(deps.formation, window, { signal });
  signal.throwIfAborted();
  // What the extraction LLM proposed is masked before a second LLM call or an embedding reads it.
  const guarded = extracted === null || deps.guard === undefined ? null : await deps.guard.candidates(extracted.candidates, job.tenant);
  return inOrder(async () => {
    signal.throwIfAborted();
    if (extracted === null) {
      const result = { candidates: 0, operations: 0, extraction: { ...NO_USAGE }, consolidation: { ...NO_USAGE } };
      const by = {
        extractor: `${job.extractor.name}@${job.extractor.version}`,
        consolidator: 'none',
        decidedBy: 'rules' as const,
      };
      const context = contextOf(job, deps.clock().toISOString(), by);
      await writeFormedWindow(deps.store, deps.embed, { id: job.id, owner, result }, [], context, signal);
      return { outcome: null, operations: 0 };
    }
    const toConsolidate = guarded === null ? extracted : { ...extracted, candidates: guarded.candidates };
    const outcome = await consolidateWindow(deps.formation, toConsolidate, { signal });
    signal.throwIfAborted();
    const refused = guarded?.dropped.length ?? 0;
    const result = {
      candidates: extracted.candidates.length,
      operations: outcome.operations.length,
      ...(refused > 0 ? { dropped: refused } : {}),
      extraction: outcome.usage.extraction,
      consolidation: outcome.usage.consolidation,
    };
    const context = contextOf(job, deps.clock().toISOString(), decidedBy(outcome));
    const applied = await writeFormedWindow(
      deps.store,
      deps.embed,
      { id: job.id, owner, result },
      outcome.operations,
      context,
      signal,
      deps.guard,
    );
    const turns = turnsToArchive(deps.archive ?? 'superseded', outcome, applied);
    const run: JobRun = { outcome, operations: outcome.operations.length };
    if (turns.length === 0 || !deps.archiveTurns) return run;
    try {
      await deps.archiveTurns(job.tenant, turns, { ...context, scope: job.scope });
    } catch (error) {
      // The job committed: failing it now would retry a formed window or report a lost lease.
      run.archiveError = error;
    }
    return run;
  });
}

/** The episodes a formed window archives: its facts' source turns, or the source turns of the facts it superseded. */
function turnsToArchive(mode: 'formed' | 'superseded', outcome: WindowOutcome, applied: ApplyResult): string[] {
  if (mode === 'formed') return [...new Set(outcome.candidates.flatMap((c) => c.sourceTurnIds))];
  const superseded = new Set(outcome.operations.flatMap((op) => (op.op === 'supersede' ? [op.id] : [])));
  const turns = applied.memories
    .filter((m) => superseded.has(m.id))
    .flatMap((m) => m.sources.flatMap((s) => (s.type === 'chat' && s.id !== undefined ? [s.id] : [])));
  return [...new Set(turns)];
}

/** A failure as the queue records it. */
export function jobErrorOf(error: unknown, at: string): JobError {
  if (isEngramError(error)) return { code: error.code, message: error.message, retryable: error.isRetryable, at };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'INTERNAL', message, retryable: false, at };
}

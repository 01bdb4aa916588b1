import type { EmbeddingInfo } from '../memory.js';
import type { Scope } from '../scope.js';
import type { Episode } from './episode.js';
import type { EpisodePlan, EpisodeWrite } from './episode-merge.js';
import type { HistoryCaller, HistoryCause, HistoryEvent, HistoryLog } from './history.js';
import type { FormationOp } from './operations.js';
import type { FormedMemory } from './temporal.js';
import type { FormationJob, NewFormationJob, WorkQueue } from './work-queue.js';

/** Options of {@link EpisodeStore.appendEpisodes}. */
export interface AppendEpisodesOptions {
  /** System time of the writes (ISO-8601). */
  at: string;
  /** The jobs to enqueue for these plans, in the same transaction. @default none */
  jobsFor?: ((plans: EpisodePlan[]) => NewFormationJob[]) | undefined;
  /**
   * Vectors of the writes, by position in `writes`; used for the rows that are inserted (a merged
   * or replayed write keeps its row's vector). Without one an episode is stored without a vector
   * and only lexical search without an embedding space finds it. @default none
   */
  vectors?: ReadonlyArray<OperationVector | null | undefined> | undefined;
  /** Recorded in the history event of each inserted (`created`) or merged (`confirmed`) row. @default `{ type: 'system', detail: 'episodes' }` */
  cause?: HistoryCause | undefined;
  /** @default `{ kind: 'system', id: null }` */
  caller?: HistoryCaller | undefined;
}

/** Episodes, stored: rows of the memories table (type `WorkingMemory`) with their episode columns. */
export interface EpisodeStore {
  /**
   * In ONE transaction: looks up each write's mergeable episode by (exact scope, text key),
   * applies `planEpisodeWrites` (insert, merge or replay), then enqueues the jobs `jobsFor`
   * derives from the plans. Resolves only once all of it is durable, which is when
   * `remember` / capture may return. Rejects whole (nothing written) on any failure. Two
   * processes appending the same text at once end with one row counted twice.
   */
  appendEpisodes(writes: EpisodeWrite[], options: AppendEpisodesOptions): Promise<EpisodePlan[]>;
  /** By id within a tenant; missing ids absent; order follows `ids`. */
  getEpisodes(tenant: string, ids: string[]): Promise<Episode[]>;
  /** The mergeable episode with this text key in exactly this scope, or null. */
  findEpisode(scope: Scope, textKey: string): Promise<Episode | null>;
}

/** Who and what a window's changes are recorded under. */
export interface ApplyContext {
  tenant: string;
  scope: Scope;
  /** System time of the change. */
  at: string;
  cause: Extract<HistoryCause, { type: 'formation' }>;
  caller: HistoryCaller;
}

/** A new or changed text's vector, computed before the transaction. */
export interface OperationVector {
  vector: Float32Array;
  embedding: EmbeddingInfo;
}

export interface ApplyResult {
  /** The memories the operations touched, after the change. */
  memories: FormedMemory[];
  history: HistoryEvent[];
}

/**
 * What the store engine implements for formation (phase 2), on SQLite and PostgreSQL alike.
 * `applyOperations` in this folder is the reference semantics the conformance suite compares with.
 */
export interface FormationStore {
  readonly episodes: EpisodeStore;
  readonly queue: WorkQueue;
  readonly history: HistoryLog;
  /**
   * In ONE transaction: checks that `owner` still holds the job's lease, applies `operations` in
   * order (with `vectors` by memory id for added and re-texted memories), appends one history
   * event per change, and marks the job `succeeded` with `result`. Rejects with nothing written:
   * `CONFLICT` when the lease was lost, a `baseVersion` moved, a target is no longer current, or
   * an added id exists; `INVALID_INPUT` for an impossible validity. A job already succeeded is
   * answered with its stored result and no change (a retried completion is harmless).
   */
  completeWindow(
    job: { id: string; owner: string; result: NonNullable<FormationJob['result']> },
    operations: FormationOp[],
    vectors: Map<string, OperationVector>,
    context: ApplyContext,
  ): Promise<ApplyResult>;
}

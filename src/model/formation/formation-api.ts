import type { Page } from '../memory-filter.js';
import type { Scope } from '../scope.js';
import type { HistoryCaller, HistoryEvent } from './history.js';
import type { FormationJob, JobState, QueueStatus } from './work-queue.js';

/** Every formation call names its scope (the same shape as the memory API's `Scoped`). */
interface Scoped {
  scope: Scope;
}

/** Options of `remember`. */
export interface RememberOptions extends Scoped {
  /**
   * `capture`: the turns of one wrapped LLM call, formed together with the session's next turns
   * (one extraction call per window, not per call). @default 'remember'
   */
  origin?: 'remember' | 'capture' | undefined;
  /** Who stores the turns, recorded in their history (the server sets the API key's id). @default `{ kind: 'system', id: null }` */
  caller?: HistoryCaller | undefined;
}

/** What one stored turn became. */
export interface RememberedTurn {
  /** The episode's id (an existing one when the text was already in the scope). */
  id: string;
  /** `insert`: a new episode; `merge`: the same text was already in the scope (one more source and count); `unchanged`: this message was already recorded (a replay). */
  action: 'insert' | 'merge' | 'unchanged';
  /** How often the episode's text has been delivered. */
  count: number;
}

/** What `remember` answers once the turns are durably stored. */
export interface RememberResult {
  /** One per turn, in order. */
  turns: RememberedTurn[];
  /** Formation jobs enqueued with the turns (one per window; 0 for capture, whose turns wait in their session's open window). */
  jobs: number;
  /** `queued`: facts are formed in the background; `episodes-only`: no extractor is configured, or nothing new to form. */
  formation: 'queued' | 'episodes-only';
}

/** A page of a memory's history. */
export interface HistoryRequest extends Scoped {
  /** @default 50 */
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** A page of formation jobs. */
export interface FormationJobsRequest extends Scoped {
  /** @default every state */
  states?: JobState[] | undefined;
  /** @default 50 */
  limit?: number | undefined;
  cursor?: string | undefined;
}

/** The in-process formation worker, as the status shows it. */
export interface WorkerState {
  owner: string;
  running: boolean;
  concurrency: number;
  /** Jobs being formed now. */
  inFlight: number;
  /** Tenants whose jobs this worker has run. */
  tenants: string[];
}

/** Where formation stands for one tenant. */
export interface FormationStatus {
  /** True when an extractor is configured (facts are formed); false: episodes only. */
  enabled: boolean;
  extractor: { name: string; version: string; method: 'llm' | 'rule' } | null;
  consolidator: { name: string; version: string };
  /** The formation LLM's id, or null. */
  llm: string | null;
  /** The serving process's worker, or null when it runs none. */
  worker: WorkerState | null;
  queue: QueueStatus;
  /** Captured turns of the serving process waiting in open windows (enqueued when full, quiet, or on idle/close). */
  openCaptureTurns: number;
  /** The most recent dead-lettered jobs (at most 20). */
  dead: FormationJob[];
}

/** Formation's part of the memory API (the facade and the remote client both have it). */
export interface FormationApi {
  /**
   * Stores a conversation's turns as episodes (a text already in the scope adds a source and a
   * count) and queues the formation of facts from them; resolves once the turns are durable.
   */
  remember(messages: unknown[], options: RememberOptions): Promise<RememberResult>;
  /** A memory's changes, oldest first (created, updated, superseded, archived, deleted, restored, re-embedded, confirmed). */
  history(id: string, options: HistoryRequest): Promise<Page<HistoryEvent>>;
  formationStatus(options: Scoped): Promise<FormationStatus>;
  /** A page of the tenant's formation jobs. */
  formationJobs(options: FormationJobsRequest): Promise<Page<FormationJob>>;
  /** Moves a dead job back to the queue; NOT_FOUND when it is not a dead job of the tenant. */
  requeueFormation(jobId: string, options: Scoped): Promise<FormationJob>;
}

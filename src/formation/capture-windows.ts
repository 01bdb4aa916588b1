import type { Scope } from '../model/scope.js';
import { episodeScopeKey } from './episode-merge.js';
import type { FormationEventListener } from './formation-event.js';
import { estimateTokens, type WindowTurn } from './plan-windows.js';
import { windowJobs, type WindowJobOptions } from './remember.js';
import type { WorkQueue } from './work-queue.js';

/** What the open capture windows need. */
export interface CaptureWindowDeps {
  queue: WorkQueue;
  jobs: WindowJobOptions;
  clock: () => Date;
  /** A session's open window is enqueued after this long without a new turn. */
  quietMs: number;
  /** Called after jobs were enqueued (wakes the worker). */
  onEnqueued: (tenant: string) => void;
  onEvent?: FormationEventListener | undefined;
}

interface OpenWindow {
  scope: Scope;
  turns: WindowTurn[];
  tokens: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Batches captured turns into extraction windows. A wrapped call brings two turns; forming each
 * call alone would cost one extraction call per two turns. The turns are stored as episodes at
 * once (durable, recallable); their window stays open per (scope, session) and is enqueued as
 * one job when it is full (the extractor's turn or token limit), when the session has been quiet
 * for `quietMs`, and on {@link flushAll} (`idle()`, `close()`). A process killed with a window
 * open keeps its episodes; their facts are formed only when the same turns are remembered again.
 */
export class CaptureWindows {
  private readonly open = new Map<string, OpenWindow>();
  private readonly flushing = new Set<Promise<void>>();

  constructor(private readonly deps: CaptureWindowDeps) {}

  /** Adds a call's new turns (in order) to their session's open window. */
  add(scope: Scope, turns: WindowTurn[]): void {
    const { maxTurns, maxTokens } = this.deps.jobs.extractor.limits;
    for (const turn of turns) {
      const slot = `${episodeScopeKey(scope)}\u0000${turn.session ?? ''}`;
      let window = this.open.get(slot);
      const size = estimateTokens(turn.text);
      if (window && window.turns.length > 0 && window.tokens + size > maxTokens) {
        this.flush(slot);
        window = undefined;
      }
      if (!window) {
        window = { scope, turns: [], tokens: 0, timer: undefined };
        this.open.set(slot, window);
      }
      // A text said again in the same window merged into its episode: the window has it already.
      if (window.turns.some((t) => t.id === turn.id)) {
        this.arm(slot, window);
        continue;
      }
      window.turns.push(turn);
      window.tokens += size;
      if (window.turns.length >= maxTurns) this.flush(slot);
      else this.arm(slot, window);
    }
  }

  private arm(slot: string, window: OpenWindow): void {
    clearTimeout(window.timer);
    window.timer = setTimeout(() => this.flush(slot), this.deps.quietMs);
    window.timer.unref();
  }

  private flush(slot: string): void {
    const window = this.open.get(slot);
    if (!window) return;
    this.open.delete(slot);
    clearTimeout(window.timer);
    const jobs = windowJobs(window.turns, window.scope, this.deps.jobs);
    const task = this.deps.queue
      .enqueue(window.scope.tenant, jobs, this.deps.clock().toISOString())
      .then(
        () => this.deps.onEnqueued(window.scope.tenant),
        (error: unknown) =>
          this.deps.onEvent?.({ type: 'worker-error', detail: 'enqueueing a capture window failed', error }),
      )
      .finally(() => this.flushing.delete(task));
    this.flushing.add(task);
  }

  /** Number of turns waiting in open windows. */
  get pendingTurns(): number {
    let n = 0;
    for (const w of this.open.values()) n += w.turns.length;
    return n;
  }

  /** Enqueues every open window now and waits until they are enqueued. */
  async flushAll(): Promise<void> {
    for (const slot of [...this.open.keys()]) this.flush(slot);
    while (this.flushing.size > 0) await Promise.allSettled([...this.flushing]);
  }
}

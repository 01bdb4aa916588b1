import { EngramError } from '../../model/errors.js';
import type { OnnxWorkerThread } from './onnx-worker-thread.js';
import { onnxWorkerThreads } from './onnx-worker-threads.js';
import type { OpenedReply, TensorData } from './onnx-worker-protocol.js';

export type { TensorData } from './onnx-worker-protocol.js';

/** Options of {@link OnnxSessionPool.open}. */
export interface OnnxSessionPoolOptions {
  /** Worker threads, each with its own session; forward passes run in parallel across them. */
  workers: number;
  /** onnxruntime intra-op threads per worker (1 needs no thread pool, so nothing spins). */
  threads: number;
  /** What the model is called in error messages. */
  label: string;
}

interface Slot {
  thread: OnnxWorkerThread;
  /** The session's id in its thread. */
  session: number;
  /** Queued cost (padded tokens) of the passes sent to this session and not answered yet. */
  load: number;
}

const asError = (value: unknown): Error => (value instanceof Error ? value : new Error(String(value)));

/** Releases sessions (their threads stay, for the next pool); a thread that stopped has none left to release. */
async function release(slots: readonly Slot[]): Promise<void> {
  await Promise.allSettled(slots.map((s) => s.thread.call({ kind: 'release', session: s.session })));
}

/**
 * One session of a model in each of a few ONNX worker threads (see onnx-worker-threads.ts). A
 * pass goes to the session with the least queued work. onnxruntime-node runs a session on the
 * calling thread, so this is what makes passes parallel, and it keeps the main event loop free
 * while a model computes.
 */
export class OnnxSessionPool {
  private closed = false;
  private readonly running = new Set<Promise<unknown>>();

  private constructor(
    private readonly slots: Slot[],
    /** The model's input names, in graph order. */
    readonly inputNames: readonly string[],
    /** The model's output names, in graph order. */
    readonly outputNames: readonly string[],
    private readonly label: string,
  ) {}

  /**
   * Creates the sessions in the process's worker threads (starting the missing ones); rejects
   * with EMBEDDER_ERROR if the model does not load, CONFIG_ERROR without onnxruntime-node.
   */
  static async open(model: Uint8Array | string, options: OnnxSessionPoolOptions): Promise<OnnxSessionPool> {
    for (const [name, value] of [
      ['workers', options.workers],
      ['threads', options.threads],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new EngramError('CONFIG_ERROR', `${name} must be a positive integer, got ${String(value)}`);
      }
    }
    const threads = await onnxWorkerThreads(options.workers);
    // One shared copy of the model bytes for every worker instead of one clone each.
    let shared: Uint8Array | string = model;
    if (typeof model !== 'string') {
      shared = new Uint8Array(new SharedArrayBuffer(model.byteLength));
      shared.set(model);
    }
    const opened = await Promise.allSettled(
      threads.map((thread) => thread.call({ kind: 'open', model: shared, threads: options.threads })),
    );
    const slots = opened.flatMap((o, i) => {
      const thread = threads[i];
      return o.status === 'fulfilled' && thread ? [{ thread, session: o.value.id, load: 0 }] : [];
    });
    const failed = opened.find((o) => o.status === 'rejected');
    const first = opened.find((o): o is PromiseFulfilledResult<OpenedReply> => o.status === 'fulfilled');
    if (failed || !first) {
      await release(slots);
      const reason = failed ? asError(failed.reason).message : 'no worker started';
      throw new EngramError('EMBEDDER_ERROR', `The ONNX model ${options.label} could not be loaded: ${reason}`, {
        details: { model: options.label },
      });
    }
    return new OnnxSessionPool(slots, first.value.inputNames, first.value.outputNames, options.label);
  }

  /**
   * Runs one forward pass on the least busy session. `cost` is its size (e.g. batch × padded
   * length), used to balance the workers. Rejects with EMBEDDER_ERROR if the pass fails.
   */
  async run(feeds: Record<string, TensorData>, outputs: string[], cost: number): Promise<Record<string, TensorData>> {
    if (this.closed) throw new EngramError('EMBEDDER_ERROR', 'The embedder is closed');
    const alive = this.slots.filter((s) => !s.thread.dead);
    const slot = alive.reduce<Slot | undefined>((best, s) => (!best || s.load < best.load ? s : best), undefined);
    if (!slot) {
      throw new EngramError('EMBEDDER_ERROR', `Every worker of the ONNX model ${this.label} has stopped`, {
        cause: this.slots[0]?.thread.dead,
      });
    }
    const transfer = Object.values(feeds).map((t) => t.data.buffer as ArrayBuffer);
    slot.load += cost;
    const work = slot.thread.call({ kind: 'run', session: slot.session, feeds, outputs }, transfer);
    this.running.add(work);
    try {
      return (await work).outputs;
    } catch (cause) {
      throw new EngramError('EMBEDDER_ERROR', `The ONNX model ${this.label} failed to run: ${asError(cause).message}`, {
        cause,
      });
    } finally {
      this.running.delete(work);
      slot.load -= cost;
    }
  }

  /** Refuses new passes, waits for those in flight, then releases the sessions (the threads stay). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.running]);
    await release(this.slots);
  }
}

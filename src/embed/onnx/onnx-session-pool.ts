import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { EngramError } from '../../model/errors.js';
import { importOnnxRuntime } from './onnx-runtime.js';
import type { TensorData, WorkerHello, WorkerInit, WorkerReply, WorkerRequest } from './onnx-worker-protocol.js';

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
  worker: Worker;
  /** Queued cost (padded tokens) of the passes sent to this worker and not answered yet. */
  load: number;
  pending: Map<number, { resolve(outputs: Record<string, TensorData>): void; reject(error: Error): void }>;
  dead: Error | undefined;
}

/**
 * Starts a worker on the file next to this module: `.js` in the build; in the repository (tsx,
 * vitest) the `.ts` source, through a bootstrap that registers tsx's loader in the worker.
 */
function startWorker(init: WorkerInit): Worker {
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./onnx-session-worker.js', import.meta.url), { workerData: init });
  }
  // tsx's ESM API ('tsx/esm/api', import condition), resolved here for the eval'd bootstrap.
  const tsxDir = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxDir, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./onnx-session-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: init });
}

let pinned: Promise<unknown> | undefined;

/**
 * Loads onnxruntime-node once in this thread and keeps it. Its native addon registers itself
 * only when first loaded into the process: if every worker that loaded it exits, a later
 * worker cannot load it again ("Module did not self-register"). Also reports a missing
 * package before any worker starts.
 */
async function pinRuntime(): Promise<void> {
  pinned ??= importOnnxRuntime().catch((cause: unknown) => {
    pinned = undefined;
    throw new EngramError('CONFIG_ERROR', 'The ONNX embedders need the npm package onnxruntime-node', { cause });
  });
  await pinned;
}

const asError = (value: unknown): Error => (value instanceof Error ? value : new Error(String(value)));

/**
 * A few worker threads, each holding one onnxruntime-node session of the same model. A pass
 * goes to the worker with the least queued work. onnxruntime-node runs a session on the
 * calling thread, so this is what makes passes parallel, and it keeps the main event loop free
 * while a model computes.
 */
export class OnnxSessionPool {
  private nextId = 0;
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

  /** Starts the workers and creates their sessions; rejects with EMBEDDER_ERROR if the model does not load. */
  static async open(model: Uint8Array | string, options: OnnxSessionPoolOptions): Promise<OnnxSessionPool> {
    for (const [name, value] of [
      ['workers', options.workers],
      ['threads', options.threads],
    ] as const) {
      if (!Number.isInteger(value) || value < 1) {
        throw new EngramError('CONFIG_ERROR', `${name} must be a positive integer, got ${String(value)}`);
      }
    }
    await pinRuntime();
    // One shared copy of the model bytes for every worker instead of one clone each.
    let shared: Uint8Array | string = model;
    if (typeof model !== 'string') {
      shared = new Uint8Array(new SharedArrayBuffer(model.byteLength));
      shared.set(model);
    }
    const init: WorkerInit = { model: shared, threads: options.threads };
    const slots: Slot[] = Array.from({ length: options.workers }, () => ({
      worker: startWorker(init),
      load: 0,
      pending: new Map(),
      dead: undefined,
    }));
    const hellos = await Promise.allSettled(slots.map((slot) => hello(slot.worker)));
    const failed = hellos.find((h) => h.status === 'rejected' || h.value.kind === 'failed');
    const first = hellos[0];
    if (failed || first?.status !== 'fulfilled' || first.value.kind !== 'ready') {
      await Promise.all(slots.map((s) => s.worker.terminate()));
      const reason =
        failed?.status === 'rejected'
          ? asError(failed.reason).message
          : failed?.value.kind === 'failed'
            ? failed.value.message
            : 'no worker started';
      throw new EngramError('EMBEDDER_ERROR', `The ONNX model ${options.label} could not be loaded: ${reason}`, {
        details: { model: options.label },
      });
    }
    const pool = new OnnxSessionPool(slots, first.value.inputNames, first.value.outputNames, options.label);
    for (const slot of slots) pool.listen(slot);
    return pool;
  }

  /**
   * Runs one forward pass on the least busy worker. `cost` is its size (e.g. batch × padded
   * length), used to balance the workers. Rejects with EMBEDDER_ERROR if the pass fails.
   */
  async run(feeds: Record<string, TensorData>, outputs: string[], cost: number): Promise<Record<string, TensorData>> {
    if (this.closed) throw new EngramError('EMBEDDER_ERROR', 'The embedder is closed');
    const alive = this.slots.filter((s) => !s.dead);
    const slot = alive.reduce<Slot | undefined>((best, s) => (!best || s.load < best.load ? s : best), undefined);
    if (!slot) {
      throw new EngramError('EMBEDDER_ERROR', `Every worker of the ONNX model ${this.label} has stopped`, {
        cause: this.slots[0]?.dead,
      });
    }
    const id = this.nextId++;
    const transfer = Object.values(feeds).map((t) => t.data.buffer as ArrayBuffer);
    slot.load += cost;
    if (slot.pending.size === 0) slot.worker.ref();
    const work = new Promise<Record<string, TensorData>>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, feeds, outputs } satisfies WorkerRequest, transfer);
    });
    this.running.add(work);
    try {
      return await work;
    } catch (cause) {
      throw new EngramError('EMBEDDER_ERROR', `The ONNX model ${this.label} failed to run: ${asError(cause).message}`, {
        cause,
      });
    } finally {
      this.running.delete(work);
      slot.load -= cost;
      if (slot.pending.size === 0) slot.worker.unref();
    }
  }

  /** Waits for passes in flight, then stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.running]);
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private listen(slot: Slot): void {
    const failAll = (error: Error): void => {
      slot.dead ??= error;
      for (const p of slot.pending.values()) p.reject(error);
      slot.pending.clear();
    };
    slot.worker.on('message', (reply: WorkerReply) => {
      const p = slot.pending.get(reply.id);
      if (!p) return;
      slot.pending.delete(reply.id);
      if ('error' in reply) p.reject(new Error(reply.error));
      else p.resolve(reply.outputs);
    });
    slot.worker.on('error', (error) => failAll(asError(error)));
    slot.worker.on('exit', (code) => failAll(new Error(`worker exited (code ${code})`)));
    slot.worker.unref();
  }
}

/** The worker's first message (or its failure to start). */
function hello(worker: Worker): Promise<WorkerHello> {
  return new Promise((resolve, reject) => {
    const onError = (error: unknown): void => reject(asError(error));
    const onExit = (code: number): void => reject(new Error(`worker exited before it was ready (code ${code})`));
    worker.once('error', onError);
    worker.once('exit', onExit);
    worker.once('message', (m: WorkerHello) => {
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(m);
    });
  });
}

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ReplyTo, WorkerHello, WorkerReply, WorkerRequest } from './onnx-worker-protocol.js';

/** Holds requests back while another thread loads onnxruntime-node (see onnx-worker-threads.ts). */
export interface LoadGate {
  /** A promise while a load is under way, else undefined. */
  wait(): Promise<void> | undefined;
}

type Kind = WorkerRequest['kind'];
type RequestOf<K extends Kind> = Extract<WorkerRequest, { kind: K }>;

interface Pending {
  resolve(reply: WorkerReply): void;
  reject(error: Error): void;
}

const asError = (value: unknown): Error => (value instanceof Error ? value : new Error(String(value)));

/**
 * Starts a worker on the file next to this module: `.js` in the build; in the repository (tsx,
 * vitest) the `.ts` source, through a bootstrap that registers tsx's loader in the worker.
 */
function startWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./onnx-session-worker.js', import.meta.url));
  // tsx's ESM API ('tsx/esm/api', import condition), resolved here for the eval'd bootstrap.
  const tsxDir = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxDir, 'dist/esm/api/index.mjs')).href;
  const entry = new URL('./onnx-session-worker.ts', import.meta.url).href;
  const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true });
}

/** The worker's first message, or its failure to start. */
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

/**
 * One worker thread with onnxruntime-node loaded, holding any number of sessions. Requests are
 * numbered and answered in any order. The thread keeps the process alive only while a request
 * is unanswered.
 */
export class OnnxWorkerThread {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private idleWaiters: (() => void)[] = [];
  /** Why the thread stopped; it answers nothing afterwards. */
  dead: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly gate: LoadGate,
  ) {}

  /**
   * Starts a thread and waits until onnxruntime-node has loaded in it. Rejects with the load
   * error (the thread is stopped: the addon never initialised in it).
   */
  static async start(gate: LoadGate): Promise<OnnxWorkerThread> {
    const worker = startWorker();
    const first = await hello(worker);
    if (first.kind === 'load-failed') {
      await worker.terminate();
      throw new Error(first.message);
    }
    const thread = new OnnxWorkerThread(worker, gate);
    thread.listen();
    return thread;
  }

  /** Resolves once no request is unanswered. */
  idle(): Promise<void> {
    if (this.pending.size === 0 || this.dead) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Sends a request (after any load under way) and resolves with its reply; rejects with the thread's error message. */
  async call<K extends Kind>(
    request: { kind: K } & Omit<RequestOf<K>, 'id' | 'kind'>,
    transfer: ArrayBuffer[] = [],
  ): Promise<ReplyTo<RequestOf<K>>> {
    for (let wait = this.gate.wait(); wait; wait = this.gate.wait()) await wait.catch(() => undefined);
    if (this.dead) throw this.dead;
    const id = this.nextId++;
    if (this.pending.size === 0) this.worker.ref();
    const reply = await new Promise<WorkerReply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id }, transfer);
    });
    if (reply.kind === 'failed') throw new Error(reply.message);
    return reply as ReplyTo<RequestOf<K>>;
  }

  private settle(id: number): Pending | undefined {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) {
      if (!this.dead) this.worker.unref();
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
    return p;
  }

  private listen(): void {
    const stop = (error: Error): void => {
      if (this.dead) return;
      this.dead = error;
      for (const id of [...this.pending.keys()]) this.settle(id)?.reject(error);
    };
    this.worker.on('message', (reply: WorkerReply) => this.settle(reply.id)?.resolve(reply));
    this.worker.on('error', (error) => stop(asError(error)));
    this.worker.on('exit', (code) => stop(new Error(`worker exited (code ${code})`)));
    this.worker.unref();
  }
}

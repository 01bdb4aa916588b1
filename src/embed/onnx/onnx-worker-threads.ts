import { EngramError } from '../../model/errors.js';
import { OnnxWorkerThread, type LoadGate } from './onnx-worker-thread.js';

/*
 * The process's ONNX worker threads, shared by every session pool and never stopped.
 *
 * onnxruntime-node 1.17's addon keeps one process-wide static reference to its
 * InferenceSession class, and every thread that loads the addon first deletes the reference the
 * previous load stored — through that thread's N-API environment. If that thread has exited,
 * its environment is freed and the delete writes into freed memory (valgrind: "Invalid write"
 * in napi_delete_reference from InferenceSessionWrap::Init); the heap corruption surfaces
 * later, typically as `free(): invalid next size` or a segfault when the process exits. So:
 *   - only these threads load the addon (never the main thread), and none is ever terminated:
 *     a pool that closes releases its sessions and leaves the threads to the next pool;
 *   - threads load one at a time, while every other thread is idle (the delete touches the
 *     previous thread's environment, which must not be in use), holding requests back meanwhile;
 *   - no thread is started after the one that loaded last has stopped.
 * Idle threads do not keep the process alive.
 */

const threads: OnnxWorkerThread[] = [];
let loading: Promise<void> | undefined;
const gate: LoadGate = { wait: () => loading };

const alive = (): OnnxWorkerThread[] => threads.filter((t) => !t.dead);
const message = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause));

async function addThread(): Promise<void> {
  await Promise.all(threads.map((t) => t.idle()));
  try {
    threads.push(await OnnxWorkerThread.start(gate));
  } catch (cause) {
    throw new EngramError(
      'CONFIG_ERROR',
      `The ONNX embedders need the npm package onnxruntime-node: ${message(cause)}`,
      {
        cause,
      },
    );
  }
}

/**
 * Up to `count` live ONNX worker threads, starting the missing ones. Fewer when a thread has
 * stopped and another cannot safely be started (at least one, else EMBEDDER_ERROR). Rejects with
 * CONFIG_ERROR when onnxruntime-node cannot be loaded.
 */
export async function onnxWorkerThreads(count: number): Promise<OnnxWorkerThread[]> {
  while (alive().length < count && !threads.at(-1)?.dead) {
    if (loading) {
      await loading.catch(() => undefined);
      continue;
    }
    loading = addThread().finally(() => (loading = undefined));
    await loading;
  }
  const live = alive();
  if (live.length === 0) {
    throw new EngramError('EMBEDDER_ERROR', 'The ONNX worker threads have stopped; restart the process', {
      cause: threads.at(-1)?.dead,
    });
  }
  return live.slice(0, count);
}

/** Resolves when onnxruntime-node loads in a worker thread; rejects with CONFIG_ERROR when it cannot. */
export async function loadOnnxRuntime(): Promise<void> {
  await onnxWorkerThreads(1);
}

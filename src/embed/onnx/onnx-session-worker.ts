/**
 * An ONNX worker thread: loads onnxruntime-node once, then creates, runs and releases the
 * sessions the main thread asks for. onnxruntime-node's `run` computes on the calling thread,
 * so passes in workers run truly in parallel and never block the main event loop. The thread
 * lives as long as the process (see onnx-worker-threads.ts for why).
 */
import { parentPort } from 'node:worker_threads';
import {
  importOnnxRuntime,
  type OrtModule,
  type OrtSession,
  type OrtSessionOptions,
  type OrtTensor,
} from './onnx-runtime.js';
import type {
  OpenRequest,
  RunRequest,
  TensorData,
  WorkerHello,
  WorkerReply,
  WorkerRequest,
} from './onnx-worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('onnx-session-worker must run in a worker thread');

const message = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause));

function toTensorData(value: unknown): TensorData | undefined {
  const t = value as { data?: unknown; dims?: readonly number[] };
  const dims = [...(t.dims ?? [])];
  // Copy: the output may live in memory owned by the session, which cannot be transferred.
  if (t.data instanceof Float32Array) return { type: 'float32', data: new Float32Array(t.data), dims };
  if (t.data instanceof BigInt64Array) return { type: 'int64', data: new BigInt64Array(t.data), dims };
  return undefined;
}

const sessions = new Map<number, OrtSession>();

async function open(ort: OrtModule, request: OpenRequest): Promise<WorkerReply> {
  const options: OrtSessionOptions = {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    intraOpNumThreads: request.threads,
    interOpNumThreads: 1,
  };
  // A plain copy of the bytes: the pool shares them between workers in a SharedArrayBuffer.
  const model = typeof request.model === 'string' ? request.model : new Uint8Array(request.model);
  const session = await ort.InferenceSession.create(model, options);
  sessions.set(request.id, session);
  return { kind: 'opened', id: request.id, inputNames: [...session.inputNames], outputNames: [...session.outputNames] };
}

async function run(ort: OrtModule, request: RunRequest, transfer: ArrayBuffer[]): Promise<WorkerReply> {
  const session = sessions.get(request.session);
  if (!session) throw new Error(`no session ${request.session} in this worker (released?)`);
  const feeds: Record<string, OrtTensor> = {};
  for (const [name, t] of Object.entries(request.feeds)) feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  const results = await session.run(feeds, request.outputs);
  const outputs: Record<string, TensorData> = {};
  for (const name of request.outputs) {
    const t = toTensorData(results[name]);
    if (!t) throw new Error(`output '${name}' is missing or not float32/int64`);
    outputs[name] = t;
    transfer.push(t.data.buffer as ArrayBuffer);
  }
  return { kind: 'ran', id: request.id, outputs };
}

async function answer(ort: OrtModule, request: WorkerRequest, transfer: ArrayBuffer[]): Promise<WorkerReply> {
  if (request.kind === 'open') return open(ort, request);
  if (request.kind === 'run') return run(ort, request, transfer);
  const session = sessions.get(request.session);
  sessions.delete(request.session);
  await session?.release();
  return { kind: 'released', id: request.id };
}

async function main(): Promise<void> {
  let ort: OrtModule;
  try {
    ort = await importOnnxRuntime();
  } catch (cause) {
    port?.postMessage({ kind: 'load-failed', message: message(cause) } satisfies WorkerHello);
    return;
  }
  port?.on('message', (request: WorkerRequest) => {
    void (async () => {
      const transfer: ArrayBuffer[] = [];
      let reply: WorkerReply;
      try {
        reply = await answer(ort, request, transfer);
      } catch (cause) {
        reply = { kind: 'failed', id: request.id, message: message(cause) };
      }
      port.postMessage(reply, transfer);
    })();
  });
  port?.postMessage({ kind: 'loaded' } satisfies WorkerHello);
}

void main();

/**
 * Worker thread of {@link OnnxSessionPool}: owns one onnxruntime session and runs the forward
 * passes sent to it. onnxruntime-node's `run` computes on the calling thread, so passes in
 * workers run truly in parallel and never block the main event loop.
 */
import { parentPort, workerData } from 'node:worker_threads';
import {
  importOnnxRuntime,
  type OrtModule,
  type OrtSession,
  type OrtSessionOptions,
  type OrtTensor,
} from './onnx-runtime.js';
import type { TensorData, WorkerHello, WorkerInit, WorkerReply, WorkerRequest } from './onnx-worker-protocol.js';

const port = parentPort;
if (!port) throw new Error('onnx-session-worker must run in a worker thread');
const init = workerData as WorkerInit;

const message = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause));

function toTensorData(value: unknown): TensorData | undefined {
  const t = value as { data?: unknown; dims?: readonly number[] };
  const dims = [...(t.dims ?? [])];
  // Copy: the output may live in memory owned by the session, which cannot be transferred.
  if (t.data instanceof Float32Array) return { type: 'float32', data: new Float32Array(t.data), dims };
  if (t.data instanceof BigInt64Array) return { type: 'int64', data: new BigInt64Array(t.data), dims };
  return undefined;
}

async function main(): Promise<void> {
  let ort: OrtModule;
  let session: OrtSession;
  try {
    ort = await importOnnxRuntime();
    const options: OrtSessionOptions = {
      executionProviders: ['cpu'],
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      intraOpNumThreads: init.threads,
      interOpNumThreads: 1,
    };
    // A plain copy of the bytes: the pool shares them between workers in a SharedArrayBuffer.
    session = await ort.InferenceSession.create(
      typeof init.model === 'string' ? init.model : new Uint8Array(init.model),
      options,
    );
  } catch (cause) {
    port?.postMessage({ kind: 'failed', message: message(cause) } satisfies WorkerHello);
    return;
  }
  port?.on('message', (request: WorkerRequest) => {
    void (async () => {
      let reply: WorkerReply;
      const transfer: ArrayBuffer[] = [];
      try {
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
        reply = { id: request.id, outputs };
      } catch (cause) {
        reply = { id: request.id, error: message(cause) };
      }
      port.postMessage(reply, transfer);
    })();
  });
  port?.postMessage({
    kind: 'ready',
    inputNames: [...session.inputNames],
    outputNames: [...session.outputNames],
  } satisfies WorkerHello);
}

void main();

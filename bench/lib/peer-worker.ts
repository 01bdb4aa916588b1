/**
 * Runs a peer of the speed bench in its own worker thread, so each system has a V8 heap of its
 * own: a peer holding a large JS heap (Orama keeps every document as objects) no longer slows the
 * garbage collections of the systems it is compared with, and the other way round. Searches are
 * timed inside the worker (the message round trip is left out).
 */
import { Worker } from 'node:worker_threads';
import type { SyntheticCorpus } from './synthetic-corpus.js';

export type PeerKind = 'reference' | 'orama' | 'mem0';

export type PeerRequest =
  | {
      type: 'open';
      kind: PeerKind;
      texts: string[];
      matrix: Float32Array;
      dim: number;
      /** Query texts and vectors (mem0 embeds the query itself through a lookup). */
      queries: Array<[string, Float32Array]>;
    }
  | { type: 'search'; text: string; vector: Float32Array; k: number }
  | { type: 'close' };

export type PeerReply =
  | { type: 'ready' }
  | { type: 'opened'; ingestSeconds: number }
  | { type: 'result'; ids: string[]; ms: number }
  | { type: 'closed' }
  | { type: 'error'; message: string };

/** A peer in a worker: search returns the ids and the time measured inside the worker. */
export interface WorkerPeer {
  ingestSeconds: number;
  search(text: string, vector: Float32Array, k: number): Promise<{ ids: string[]; ms: number }>;
  close(): Promise<void>;
}

export async function openPeerInWorker(
  kind: PeerKind,
  corpus: SyntheticCorpus,
  queries: ReadonlyMap<string, Float32Array>,
): Promise<WorkerPeer> {
  const entry = new URL('./peer-worker-entry.ts', import.meta.url).href;
  // The worker loads TypeScript through tsx's loader, registered before the entry is imported.
  const worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`,
    { eval: true },
  );
  let pending: { resolve: (reply: PeerReply) => void; reject: (error: Error) => void } | null = null;
  const ready = new Promise<void>((resolve, reject) => {
    worker.once('message', (reply: PeerReply) =>
      reply.type === 'ready' ? resolve() : reject(new Error(`unexpected ${reply.type}`)),
    );
    worker.once('error', reject);
  });
  worker.on('message', (reply: PeerReply) => {
    if (reply.type === 'ready' || pending === null) return;
    const waiting = pending;
    pending = null;
    if (reply.type === 'error') waiting.reject(new Error(`${kind} worker: ${reply.message}`));
    else waiting.resolve(reply);
  });
  worker.on('error', (error) => pending?.reject(error));
  await ready;
  const ask = (request: PeerRequest): Promise<PeerReply> =>
    new Promise((resolve, reject) => {
      pending = { resolve, reject };
      worker.postMessage(request);
    });
  const opened = await ask({
    type: 'open',
    kind,
    texts: corpus.texts,
    matrix: corpus.matrix,
    dim: corpus.dim,
    queries: [...queries],
  });
  if (opened.type !== 'opened') throw new Error(`${kind} worker: unexpected ${opened.type}`);
  return {
    ingestSeconds: opened.ingestSeconds,
    async search(text, vector, k) {
      const reply = await ask({ type: 'search', text, vector, k });
      if (reply.type !== 'result') throw new Error(`${kind} worker: unexpected ${reply.type}`);
      return { ids: reply.ids, ms: reply.ms };
    },
    async close() {
      await ask({ type: 'close' });
      await worker.terminate();
    },
  };
}

/**
 * Worker side of {@link openPeerInWorker}: opens one peer over the corpus it is sent and answers
 * searches, timing each inside the worker.
 */
import { parentPort } from 'node:worker_threads';
import { openMem0, openOrama, openReferenceSqlite, type SpeedSystem } from './speed-peers.js';
import type { PeerKind, PeerReply, PeerRequest } from './peer-worker.js';

const port = parentPort;
if (port === null) throw new Error('peer-worker-entry must run in a worker thread');

let system: SpeedSystem | undefined;

async function open(kind: PeerKind, request: Extract<PeerRequest, { type: 'open' }>): Promise<SpeedSystem> {
  const { texts, matrix, dim } = request;
  const corpus = {
    size: texts.length,
    dim,
    texts,
    matrix,
    row: (i: number) => matrix.subarray(i * dim, (i + 1) * dim),
    realItems: texts.length,
  };
  if (kind === 'reference') return openReferenceSqlite(corpus);
  if (kind === 'orama') return openOrama(corpus);
  return openMem0(corpus, new Map(request.queries));
}

port.on('message', (request: PeerRequest) => {
  const reply = (message: PeerReply): void => port.postMessage(message);
  void (async () => {
    try {
      if (request.type === 'open') {
        system = await open(request.kind, request);
        reply({ type: 'opened', ingestSeconds: system.ingestSeconds });
      } else if (request.type === 'search') {
        if (system === undefined) throw new Error('search before open');
        const start = performance.now();
        const ids = await system.search(request.text, request.vector, request.k);
        reply({ type: 'result', ids, ms: performance.now() - start });
      } else {
        await system?.close();
        reply({ type: 'closed' });
      }
    } catch (error) {
      reply({ type: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  })();
});
port.postMessage({ type: 'ready' } satisfies PeerReply);

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the local server received it. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** How the server answers one request: status, JSON (or raw text) body, optional delay. */
export interface CannedReply {
  status?: number;
  json?: unknown;
  text?: string;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface LocalHttpServer {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 (random port) that records requests and answers through
 * `handler`, which may return a reply or a list of replies consumed one per request.
 */
export async function startLocalServer(
  handler: (request: ReceivedRequest, index: number) => CannedReply | Promise<CannedReply>,
): Promise<LocalHttpServer> {
  const requests: ReceivedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = raw;
        try {
          body = raw ? (JSON.parse(raw) as unknown) : null;
        } catch {
          /* keep raw text */
        }
        const received: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        requests.push(received);
        const reply = await handler(received, requests.length - 1);
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const payload = reply.text ?? JSON.stringify(reply.json ?? {});
        res.writeHead(reply.status ?? 200, {
          'content-type': reply.text ? 'text/plain' : 'application/json',
          ...reply.headers,
        });
        res.end(payload);
      })();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

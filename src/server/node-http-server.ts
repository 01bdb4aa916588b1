import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { EngramError } from '../model/errors.js';

/** Timeouts of the Node HTTP server, in milliseconds. */
export interface NodeServerTimeouts {
  /** Longest time to receive a whole request. @default 30000 */
  requestTimeoutMs?: number | undefined;
  /** Longest time to receive the request headers. @default 10000 */
  headersTimeoutMs?: number | undefined;
  /** How often request and header timeouts are checked. @default 1000 */
  timeoutCheckIntervalMs?: number | undefined;
  /** Idle keep-alive time. @default 5000 */
  keepAliveTimeoutMs?: number | undefined;
}

/** A Node HTTP server, the sockets it holds open and the requests it is handling (for shutdown). */
export interface NodeServer {
  server: Server;
  sockets: Set<Socket>;
  /** One promise per request whose handler has not ended (its client may have gone). */
  inFlight: Set<Promise<unknown>>;
}

/**
 * A Node HTTP server for a fetch-style app: bounded request and header times, every socket
 * tracked, malformed or timed-out requests answered 400/408 without crashing, and
 * `connection: close` on every response once `draining()` is true.
 */
export function createNodeServer(
  fetch: (request: Request) => Response | Promise<Response>,
  timeouts: NodeServerTimeouts,
  draining: () => boolean,
): NodeServer {
  const listener = getRequestListener(fetch);
  const server = createServer(
    {
      requestTimeout: timeouts.requestTimeoutMs ?? 30_000,
      headersTimeout: timeouts.headersTimeoutMs ?? 10_000,
      keepAliveTimeout: timeouts.keepAliveTimeoutMs ?? 5_000,
      connectionsCheckingInterval: timeouts.timeoutCheckIntervalMs ?? 1_000,
    },
    (req, res) => {
      if (draining()) res.setHeader('connection', 'close');
      // Tracked until the handler ends, even when its client has gone: shutdown waits for it
      // before it closes the store the handler may still be using.
      const done = (): void => void inFlight.delete(handling);
      const handling: Promise<void> = listener(req, res).then(done, done);
      inFlight.add(handling);
    },
  );
  const inFlight = new Set<Promise<unknown>>();
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (error, socket) => {
    const code = (error as NodeJS.ErrnoException).code;
    const status = code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    else socket.destroy();
  });
  return { server, sockets, inFlight };
}

/** Listens on `host:port`; CONFIG_ERROR when the address cannot be bound. */
export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) =>
      reject(new EngramError('CONFIG_ERROR', `cannot listen on ${host}:${port}: ${error.message}`, { cause: error }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** `http://host:port` of a bound address (IPv6 in brackets). */
export function urlOf(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

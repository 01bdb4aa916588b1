import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { MemoryApi } from '../model/api.js';
import { openDataDirKeyStore } from '../auth/key-admin.js';
import type { KeyStore, KeyVerifier } from '../auth/key-store.js';
import { EngramError } from '../model/errors.js';
import { Engram } from '../engram.js';
import { createApp, type ServerLimits } from './create-app.js';
import type { SearchDeps } from './search-route.js';
import { openDefaultEngram, type DefaultEngramOptions } from './open-default-engram.js';
import { silentLogger, type ServerLogger } from './server-logger.js';
import { createServerMetrics, type ServerMetrics } from './server-metrics.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Data directory: the SQLite database and the key database live here. */
  dataDir: string;
  /** TCP port; 0 picks a free one. @default 8787 */
  port?: number | undefined;
  /** Interface to listen on. @default '127.0.0.1' */
  host?: string | undefined;
  /** The memory API to serve. @default SQLite in `dataDir` + the local embedder (closed on shutdown) */
  engram?: MemoryApi | undefined;
  /** Options of the default Engram when `engram` is not given. */
  defaults?: Omit<DefaultEngramOptions, 'dataDir'> | undefined;
  /** Close `engram` on shutdown even when it was passed in. @default true when the server opened it, false otherwise */
  closeEngram?: boolean | undefined;
  /** Searcher dependencies for `/v1/search`, or false to turn it off. @default the store and embedder of `engram` when it is an `Engram` */
  search?: SearchDeps | false | undefined;
  /** API keys. @default the key database in `dataDir` */
  keys?: KeyVerifier | undefined;
  /** @default silent (the server prints nothing itself) */
  logger?: ServerLogger | undefined;
  /** @default a fresh registry */
  metrics?: ServerMetrics | undefined;
  limits?: Partial<ServerLimits> | undefined;
  /** Validate responses against their schemas. @default false */
  validateResponses?: boolean | undefined;
  /** Longest time to receive a whole request (slow bodies are cut). @default 30000 */
  requestTimeoutMs?: number | undefined;
  /** Longest time to receive the request headers. @default 10000 */
  headersTimeoutMs?: number | undefined;
  /** How often request and header timeouts are checked. @default 1000 */
  timeoutCheckIntervalMs?: number | undefined;
  /** Idle keep-alive time. @default 5000 */
  keepAliveTimeoutMs?: number | undefined;
  /** After this long, shutdown closes connections whose requests are still running. @default 10000 */
  shutdownTimeoutMs?: number | undefined;
  /** Shut down gracefully on SIGTERM and SIGINT. @default false */
  handleSignals?: boolean | undefined;
  /** Called once shutdown has finished (e.g. to exit the process), with the error if closing failed. */
  onClosed?: ((error?: unknown) => void) | undefined;
}

/** A listening server. */
export interface RunningServer {
  /** e.g. `http://127.0.0.1:8787` */
  url: string;
  port: number;
  host: string;
  /**
   * Graceful shutdown: stop accepting, let in-flight requests finish (up to the shutdown
   * timeout), then close the store. Idempotent.
   */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new EngramError('CONFIG_ERROR', `cannot listen on ${host}:${port}: ${error.message}`, { cause: error }));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/**
 * Starts the Engram HTTP API (REST, OpenAPI, metrics, MCP at `/mcp`). Prints nothing; the
 * caller prints `url`. With `handleSignals`, SIGTERM/SIGINT trigger {@link RunningServer.close}.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? silentLogger();
  const ownsEngram = options.engram === undefined;
  const api = options.engram ?? (await openDefaultEngram({ ...options.defaults, dataDir: options.dataDir }));
  let keyStore: KeyStore | undefined;
  let keys: KeyVerifier;
  try {
    keys = options.keys ?? (keyStore = openDataDirKeyStore({ dataDir: options.dataDir }));
  } catch (error) {
    if (ownsEngram) await api.close();
    throw error;
  }
  let draining = false;
  const app = createApp({
    api,
    keys,
    logger,
    metrics: options.metrics ?? createServerMetrics(),
    limits: options.limits,
    validateResponses: options.validateResponses,
    ready: () => !draining,
    search: options.search === false ? undefined : (options.search ?? (api instanceof Engram ? { store: api.store, embedder: api.embedder } : undefined)),
  });
  const listener = getRequestListener(app.fetch);
  const server = createServer(
    {
      requestTimeout: options.requestTimeoutMs ?? 30_000,
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
      connectionsCheckingInterval: options.timeoutCheckIntervalMs ?? 1_000,
    },
    (req, res) => {
      if (draining) res.setHeader('connection', 'close');
      void listener(req, res);
    },
  );
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('clientError', (error, socket) => {
    // Malformed HTTP or a timed-out slow client: answer 400/408 when possible, never crash.
    const code = (error as NodeJS.ErrnoException).code;
    const status = code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    else socket.destroy();
  });

  let address: AddressInfo;
  try {
    address = await listen(server, options.port ?? 8787, host);
  } catch (error) {
    keyStore?.close();
    if (ownsEngram) await api.close();
    throw error;
  }
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;
  logger.info({ url }, 'listening');

  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    void close();
  };
  const close = (): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      if (options.handleSignals) {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => {
        logger.warn({ open: sockets.size }, 'shutdown timeout: closing open connections');
        server.closeAllConnections();
      }, options.shutdownTimeoutMs ?? 10_000);
      timer.unref();
      // Idle keep-alive sockets that become idle after their last response are closed too.
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      sweep.unref();
      let failure: unknown;
      try {
        await stopped;
      } finally {
        clearTimeout(timer);
        clearInterval(sweep);
      }
      try {
        keyStore?.close();
        if (options.closeEngram ?? ownsEngram) await api.close();
      } catch (error) {
        failure = error;
        logger.error({ err: error }, 'error while closing');
      }
      logger.info({}, 'closed');
      options.onClosed?.(failure);
      if (failure !== undefined) throw failure;
    })();
    return closing;
  };
  if (options.handleSignals) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { url, port: address.port, host, close };
}

import { openDataDirKeyStore } from '../auth/key-admin.js';
import type { KeyStore, KeyVerifier } from '../auth/key-store.js';
import type { MemoryApi } from '../model/api.js';
import { openDefaultEngram, type DefaultEngramOptions } from '../open-default-engram.js';
import { createApp } from './create-app.js';
import { gracefulClose } from './graceful-close.js';
import { createNodeServer, listen, urlOf, type NodeServerTimeouts } from './node-http-server.js';
import type { SearchServing } from './route-types.js';
import type { ServerLimits } from './server-limits.js';
import { silentLogger, type ServerLogger } from './server-logger.js';
import { createServerMetrics, type ServerMetrics } from './server-metrics.js';

/** Options of {@link startServer}. */
export interface StartServerOptions extends NodeServerTimeouts {
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
  /**
   * What `/v1/search` advertises (it always runs the served API's `search`), or false to turn it off.
   * @default the reranker names of the Engram the server opens; the built-in names when `engram` is given
   */
  search?: SearchServing | false | undefined;
  /** API keys. @default the key database in `dataDir` */
  keys?: KeyVerifier | undefined;
  /** @default silent (the server prints nothing itself) */
  logger?: ServerLogger | undefined;
  /** @default a fresh registry */
  metrics?: ServerMetrics | undefined;
  limits?: Partial<ServerLimits> | undefined;
  /** Validate responses against their schemas. @default false */
  validateResponses?: boolean | undefined;
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

/** The API and key store a server serves, and how to let go of them. */
interface Served {
  api: MemoryApi;
  keys: KeyVerifier;
  search: SearchServing | false | undefined;
  /** After shutdown: the key store it opened, and the API when it owns it (`closeEngram`). */
  release(): Promise<void>;
  /** When it never started: only what it opened itself. */
  abandon(): Promise<void>;
}

/** The given API or the embedded default one, and the given keys or the data directory's. */
async function openServed(options: StartServerOptions): Promise<Served> {
  const given = options.engram;
  const opened =
    given === undefined ? await openDefaultEngram({ ...options.defaults, dataDir: options.dataDir }) : undefined;
  const api: MemoryApi = given ?? (opened as MemoryApi);
  const closeApi = options.closeEngram ?? given === undefined;
  let keyStore: KeyStore | undefined;
  try {
    const keys = options.keys ?? (keyStore = openDataDirKeyStore({ dataDir: options.dataDir }));
    return {
      api,
      keys,
      search: options.search ?? (opened ? { rerankers: opened.rerankerNames() } : undefined),
      async release() {
        keyStore?.close();
        if (closeApi) await api.close();
      },
      async abandon() {
        keyStore?.close();
        await opened?.close();
      },
    };
  } catch (error) {
    if (opened) await opened.close();
    throw error;
  }
}

/** Releases what the server served, logs the outcome and tells `onClosed`; rethrows a release error. */
async function releaseAndReport(served: Served, options: StartServerOptions, logger: ServerLogger): Promise<void> {
  let failure: unknown;
  try {
    await served.release();
  } catch (error) {
    failure = error;
    logger.error({ err: error }, 'error while closing');
  }
  logger.info({}, 'closed');
  options.onClosed?.(failure);
  if (failure !== undefined) throw failure;
}

/**
 * Starts the Engram HTTP API (REST, OpenAPI, metrics, MCP at `/mcp`). Prints nothing; the
 * caller prints `url`. With `handleSignals`, SIGTERM/SIGINT trigger {@link RunningServer.close}.
 */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const logger = options.logger ?? silentLogger();
  const served = await openServed(options);
  let draining = false;
  const app = createApp({
    api: served.api,
    keys: served.keys,
    logger,
    metrics: options.metrics ?? createServerMetrics(),
    limits: options.limits,
    validateResponses: options.validateResponses,
    ready: () => !draining,
    search: served.search,
  });
  const node = createNodeServer(app.fetch, options, () => draining);
  const address = await listen(node.server, options.port ?? 8787, host).catch(async (error: unknown) => {
    await served.abandon();
    throw error;
  });
  const url = urlOf(address);
  logger.info({ url }, 'listening');
  // Recently served scopes load in the background; a request for one still loading waits for it.
  served.api.warm?.().then(
    (report) =>
      logger.info(
        {
          partitions: report.partitions.length,
          memories: report.cachedMemories,
          bytes: report.cachedBytes,
          ms: Math.round(report.ms),
        },
        'warmed',
      ),
    (error: unknown) => logger.warn({ err: error }, 'warm-up failed'),
  );

  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'shutting down');
    void close();
  };
  const close = (): Promise<void> =>
    (closing ??= gracefulClose(node, {
      logger,
      shutdownTimeoutMs: options.shutdownTimeoutMs ?? 10_000,
      drain: () => {
        draining = true;
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
      },
      release: () => releaseAndReport(served, options, logger),
    }));
  if (options.handleSignals) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  return { url, port: address.port, host, close };
}

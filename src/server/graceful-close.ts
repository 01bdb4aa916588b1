import type { NodeServer } from './node-http-server.js';
import type { ServerLogger } from './server-logger.js';

/** What {@link gracefulClose} needs besides the server. */
export interface GracefulCloseOptions {
  logger: ServerLogger;
  /** After this long, connections whose requests are still running are closed. */
  shutdownTimeoutMs: number;
  /** Called first (stop taking work: readiness fails, responses say `connection: close`). */
  drain(): void;
  /** Called once the server has stopped: close what it served (key store, API). */
  release(): Promise<void>;
}

/**
 * Stops accepting, closes idle keep-alive connections as they become idle, lets in-flight
 * requests finish, those whose clients went away included (up to the shutdown timeout, then
 * closes what is left), then releases the served resources. Resolves once everything is closed; rejects with the release error.
 */
export async function gracefulClose(
  { server, sockets, inFlight }: NodeServer,
  options: GracefulCloseOptions,
): Promise<void> {
  options.drain();
  const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  let timedOut!: () => void;
  const timeout = new Promise<void>((resolve) => (timedOut = resolve));
  const timer = setTimeout(() => {
    options.logger.warn({ open: sockets.size, handling: inFlight.size }, 'shutdown timeout: closing open connections');
    server.closeAllConnections();
    timedOut();
  }, options.shutdownTimeoutMs);
  timer.unref();
  // Keep-alive sockets that become idle after their last response are closed too.
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  sweep.unref();
  try {
    await stopped;
    // A client that went away closes its connection, but its handler may still be reading or
    // writing: the store closes after it (or after the timeout).
    await Promise.race([Promise.allSettled([...inFlight]), timeout]);
  } finally {
    clearTimeout(timer);
    clearInterval(sweep);
  }
  await options.release();
}

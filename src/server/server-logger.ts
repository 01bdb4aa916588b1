import { pino, type DestinationStream, type Logger } from 'pino';

/** The structured logger of the server (pino). Every request line carries `reqId`. */
export type ServerLogger = Logger;

/** Options of {@link createServerLogger}. */
export interface ServerLoggerOptions {
  /** Where JSON lines go, e.g. `process.stderr` or a test sink. */
  destination: DestinationStream;
  /** @default 'info' */
  level?: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | undefined;
}

/** A JSON-lines logger writing to an injected destination. */
export function createServerLogger(options: ServerLoggerOptions): ServerLogger {
  return pino({ level: options.level ?? 'info', base: { service: 'engram' } }, options.destination);
}

/** A logger that drops everything (the default: the server prints nothing by itself). */
export function silentLogger(): ServerLogger {
  return pino({ level: 'silent' });
}

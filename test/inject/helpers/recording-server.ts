import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  createServer as createHttp2Server,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'] | Http2ServerRequest['headers'];
  body: Buffer;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** A whole body, or chunks written one by one (SSE events, event-stream frames). */
  body?: string | Uint8Array;
  chunks?: Array<string | Uint8Array>;
  /** Pause between chunks, in ms. */
  chunkDelayMs?: number;
}

export type Responder = (request: RecordedRequest) => Reply;

/**
 * A real HTTP server on 127.0.0.1 (random port) that records each request and answers with
 * `respond`. HTTP/1.1 by default; cleartext HTTP/2 (h2c, prior knowledge) for clients that
 * speak only that, such as the Bedrock runtime client's NodeHttp2Handler.
 */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private readonly server;
  private readonly sessions = new Set<Http2Session>();
  url = '';

  constructor(
    private readonly respond: Responder,
    private readonly options: { http2?: boolean } = {},
  ) {
    if (options.http2 === true) {
      const h2 = createHttp2Server((req, res) => void this.handle(req, res));
      h2.on('session', (session) => {
        this.sessions.add(session);
        session.on('close', () => this.sessions.delete(session));
      });
      this.server = h2;
    } else {
      this.server = createServer((req, res) => void this.handle(req, res));
    }
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    if ('closeAllConnections' in this.server) this.server.closeAllConnections();
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The last request's JSON body. */
  lastJson(): unknown {
    return this.requests.at(-1)?.json;
  }

  private async handle(
    req: IncomingMessage | Http2ServerRequest,
    res: ServerResponse | Http2ServerResponse,
  ): Promise<void> {
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk as Buffer);
    const body = Buffer.concat(parts);
    let json: unknown;
    try {
      json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body,
      json,
    };
    this.requests.push(recorded);
    const reply = this.respond(recorded);
    // Both response kinds share this API; the union's overloads are not callable as one.
    const out = res as ServerResponse;
    out.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'application/json' });
    if (reply.chunks !== undefined) {
      for (const chunk of reply.chunks) {
        out.write(chunk);
        if (reply.chunkDelayMs !== undefined) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
      }
      out.end();
      return;
    }
    out.end(reply.body ?? '');
  }
}

/** `event:` (optional) + `data:` SSE frame. */
export function sse(data: unknown, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

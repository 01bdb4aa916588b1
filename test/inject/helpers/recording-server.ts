import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
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

/** A real HTTP server on 127.0.0.1 (random port) that records each request and answers with `respond`. */
export class RecordingServer {
  readonly requests: RecordedRequest[] = [];
  private readonly server = createServer((req, res) => void this.handle(req, res));
  url = '';

  constructor(private readonly respond: Responder) {}

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The last request's JSON body. */
  lastJson(): unknown {
    return this.requests.at(-1)?.json;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk as Buffer);
    const body = Buffer.concat(parts);
    let json: unknown;
    try {
      json = body.length > 0 ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json };
    this.requests.push(recorded);
    const reply = this.respond(recorded);
    res.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'application/json' });
    if (reply.chunks !== undefined) {
      for (const chunk of reply.chunks) {
        res.write(chunk);
        if (reply.chunkDelayMs !== undefined) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
      }
      res.end();
      return;
    }
    res.end(reply.body ?? '');
  }
}

/** `event:` (optional) + `data:` SSE frame. */
export function sse(data: unknown, event?: string): string {
  return `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

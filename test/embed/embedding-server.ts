import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: { model?: string; input?: string[]; dimensions?: number };
}

/** What the server does for one request; return nothing after writing `res` yourself. */
export type Behaviour = (req: SeenRequest, res: ServerResponse) => void | Promise<void>;

/** A deterministic embedding of a text: `dim` values from its char codes, never all zero. */
export function fakeVector(text: string, dim: number): number[] {
  const v = Array.from(
    { length: dim },
    (_, k) => ((text.charCodeAt(k % Math.max(1, text.length)) || 7) * (k + 1)) % 97,
  );
  v[0] = (v[0] ?? 0) + 1;
  return v;
}

/** Answers like an OpenAI-compatible server would. */
export const ok =
  (dim = 8): Behaviour =>
  (req, res) => {
    const input = req.body.input ?? [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        model: req.body.model,
        data: input.map((text, index) => ({ object: 'embedding', index, embedding: fakeVector(text, dim) })),
        usage: { prompt_tokens: 1, total_tokens: 1 },
      }),
    );
  };

export const status =
  (
    code: number,
    body: unknown = { error: { message: `status ${code}` } },
    headers: Record<string, string> = {},
  ): Behaviour =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

/**
 * A real HTTP server on 127.0.0.1 (random port) speaking the OpenAI embeddings wire format.
 * Behaviours are consumed one per request; the last one repeats.
 */
export class EmbeddingServer {
  readonly requests: SeenRequest[] = [];
  private behaviours: Behaviour[] = [ok()];
  private server: Server | undefined;
  private readonly sockets = new Set<import('node:net').Socket>();

  get baseURL(): string {
    const address = this.server?.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}/v1`;
  }

  /** Sets the behaviours of the next requests (and resets the request log). */
  script(...behaviours: Behaviour[]): void {
    this.behaviours = behaviours;
    this.requests.length = 0;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: SeenRequest['body'] = {};
        try {
          body = JSON.parse(raw) as SeenRequest['body'];
        } catch {
          // keep {}
        }
        const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.requests.push(seen);
        if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
          status(404, { error: { message: 'not found' } })(seen, res);
          return;
        }
        const behaviour = this.behaviours.length > 1 ? this.behaviours.shift() : this.behaviours[0];
        void Promise.resolve((behaviour ?? ok())(seen, res)).catch(() => res.destroy());
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

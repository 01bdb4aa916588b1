import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKeyStore, type CreateKeyInput, type KeyStore } from '../../src/auth/key-store.js';
import { Engram } from '../../src/engram.js';
import { startServer, type RunningServer, type StartServerOptions } from '../../src/server/start-server.js';
import { DATABASE_FILE } from '../../src/open-default-engram.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

/** What an error response looks like, plus whatever a success response carries. */
export interface ApiBody {
  error?: { code: string; message: string; details: Record<string, unknown> };
  [key: string]: unknown;
}

export interface RequestOptions {
  key?: string | undefined;
  body?: unknown;
  raw?: string | undefined;
  headers?: Record<string, string> | undefined;
}

/** A real server on 127.0.0.1 over a real SQLite file, with a key store for minting keys. */
export interface Harness {
  server: RunningServer;
  url: string;
  engram: Engram;
  keys: KeyStore;
  dataDir: string;
  key(input: CreateKeyInput): string;
  /** fetch with a key; JSON body when `body` is given. */
  request<T = ApiBody>(method: string, path: string, options?: RequestOptions): Promise<{ status: number; json: T; text: string; headers: Headers }>;
  close(): Promise<void>;
}

export async function startHarness(options: Partial<StartServerOptions> = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-server-'));
  const engram = await Engram.open({ store: createSqliteStore({ path: join(dataDir, DATABASE_FILE) }), embedder: new HashedEmbedder() });
  const keys = openKeyStore({ path: join(dataDir, 'keys.sqlite') });
  const server = await startServer({ dataDir, port: 0, engram, keys, validateResponses: true, closeEngram: true, ...options });
  const harness: Harness = {
    server,
    url: server.url,
    engram,
    keys,
    dataDir,
    key: (input) => keys.create(input).key,
    async request<T>(method: string, path: string, opts: RequestOptions = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | undefined = opts.raw;
      if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] = 'application/json';
      }
      const response = await fetch(`${server.url}${path}`, { method, headers, body });
      const text = await response.text();
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON (metrics, empty bodies)
      }
      return { status: response.status, json: json as T, text, headers: response.headers };
    },
    async close() {
      await server.close();
      keys.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { MemoryApi } from '../model/api.js';
import type { Principal } from '../auth/api-key.js';
import { openDataDirKeyStore } from '../auth/key-admin.js';
import { EngramError } from '../model/errors.js';
import { validateScope } from '../model/validate.js';
import { openDefaultEngram, type DefaultEngramOptions } from '../open-default-engram.js';
import { createMcpServer } from './create-mcp-server.js';

/** Options of {@link serveMcpStdio}. */
export interface McpStdioOptions {
  api: MemoryApi;
  /** Who the process acts as. */
  principal: Principal;
  /** @default process.stdin */
  stdin?: Readable | undefined;
  /** @default process.stdout (nothing else may write to it) */
  stdout?: Writable | undefined;
}

/** A running stdio MCP server. */
export interface McpStdioServer {
  /** Resolves when the client disconnects (stdin ends) or {@link McpStdioServer.close} is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves the memory tools over stdio (JSON-RPC on stdin/stdout). */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioServer> {
  const server = createMcpServer({ api: options.api, principal: options.principal });
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  let resolveClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve));
  transport.onclose = () => resolveClosed();
  (options.stdin ?? process.stdin).once('end', () => void server.close().finally(resolveClosed));
  await server.connect(transport);
  return {
    closed,
    async close() {
      await server.close();
      resolveClosed();
    },
  };
}

/** Options of {@link runMcpStdio}: the `engram mcp` command. */
export interface RunMcpStdioOptions extends Omit<DefaultEngramOptions, 'dataDir'> {
  dataDir: string;
  /** An API key from the data directory's key store: its tenant, access and collections apply. */
  apiKey?: string | undefined;
  /** Without a key: act as this tenant with read-write access to every collection (local use). */
  tenant?: string | undefined;
  /** Serve this API instead of opening the data directory's default Engram. */
  api?: MemoryApi | undefined;
}

/**
 * Opens the data directory (SQLite + local embedder unless `api` is given), resolves the
 * principal from `apiKey` or `tenant`, serves MCP on stdio until stdin ends, then closes.
 */
export async function runMcpStdio(options: RunMcpStdioOptions): Promise<void> {
  let principal: Principal;
  if (options.apiKey !== undefined) {
    const keys = openDataDirKeyStore({ dataDir: options.dataDir });
    try {
      const verified = keys.verify(options.apiKey);
      if (!verified) throw new EngramError('UNAUTHORIZED', 'unknown or revoked API key');
      principal = verified;
    } finally {
      keys.close();
    }
  } else if (options.tenant !== undefined) {
    principal = {
      keyId: 'local',
      tenant: validateScope({ tenant: options.tenant }).tenant,
      access: 'read-write',
      collections: null,
    };
  } else {
    throw new EngramError('CONFIG_ERROR', 'give an API key or a tenant for the MCP server');
  }
  const api = options.api ?? (await openDefaultEngram(options));
  try {
    const server = await serveMcpStdio({ api, principal });
    await server.closed;
  } finally {
    if (!options.api) await api.close();
  }
}

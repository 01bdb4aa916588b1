import type { Command } from 'commander';
import { resolve } from 'node:path';
import { runMcpStdio } from '../../mcp/serve-stdio.js';
import { engramOptionsFromEnv, openEngram, type GlobalOptions } from '../cli-context.js';

/** `engram mcp`: the memory tools over MCP on stdio, for agents that launch a local server. */
export function registerMcp(program: Command, globals: () => GlobalOptions): void {
  program
    .command('mcp')
    .description('serve add/search/list/delete memory tools over MCP on stdio (ENGRAM_API_KEY limits it to that key)')
    .option('--data-dir <dir>', 'database and API keys', '.engram')
    .action(async (flags: { dataDir: string }) => {
      const options = globals();
      const apiKey = process.env['ENGRAM_API_KEY'];
      // --store names another backend; otherwise the data directory's SQLite is served.
      const api = options.store ? await openEngram(options, { formationWorker: true }, {}, resolve(flags.dataDir)) : undefined;
      try {
        // stdout carries the protocol: nothing else may be printed there.
        await runMcpStdio({
          dataDir: resolve(flags.dataDir),
          embedder: options.embedder,
          engram: engramOptionsFromEnv({ formationWorker: true }),
          api,
          ...(apiKey ? { apiKey } : { tenant: options.tenant }),
        });
      } finally {
        await api?.close();
      }
    });
}

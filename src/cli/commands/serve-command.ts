import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listKeys, createKey } from '../../auth/key-admin.js';
import { importJsonl } from '../../import/jsonl.js';
import { curlExample } from '../../server/curl-example.js';
import { openDefaultEngram } from '../../open-default-engram.js';
import { startServer } from '../../server/start-server.js';
import { DEFAULT_INSPECTOR_ROOT } from '../../server/static-inspector.js';
import type { GlobalOptions } from '../cli-context.js';
import { engramOptionsFromEnv, openEngram } from '../cli-context.js';
import { parseNumber } from '../parse-option.js';

const SAMPLE = fileURLToPath(new URL('../../../examples/sample-memories.jsonl', import.meta.url));

interface ServeFlags {
  dataDir: string;
  port: number;
  host: string;
  demo?: boolean;
}

/** With --demo: sample memories for `demo-user` and a key for the tenant, when there are none yet. */
async function prepareDemo(options: GlobalOptions, dataDir: string): Promise<string | null> {
  const engram = await openDefaultEngram({
    dataDir,
    embedder: options.embedder,
    engram: { formation: { worker: false } },
  });
  try {
    const scope = { tenant: options.tenant, user: 'demo-user' };
    if ((await engram.stats({ scope })).total === 0) {
      const { imported } = await importJsonl(SAMPLE, (inputs) => engram.addMany(inputs, { scope }));
      console.log(`Imported ${imported} sample memories for user demo-user.`);
    }
    const question = 'When is my car insurance due?';
    const best = (await engram.recall(question, { scope, limit: 1 })).hits[0];
    if (best) console.log(`Recall check: "${question}" -> ${best.memory.text} (score ${best.score.toFixed(3)})`);
  } finally {
    await engram.close();
  }
  if (listKeys({ dataDir, tenant: options.tenant }).length > 0) return null;
  const created = createKey({ dataDir, tenant: options.tenant, name: 'demo' });
  return created.key;
}

/** `engram serve`: the HTTP API, MCP endpoint and inspector on the embedded defaults. */
export function registerServe(program: Command, globals: () => GlobalOptions): void {
  program
    .command('serve')
    .description('start the HTTP API (and MCP at /mcp) with a data directory; SIGTERM shuts down gracefully')
    .option('--data-dir <dir>', 'database and API keys', '.engram')
    .option('--port <n>', 'TCP port (0 picks a free one)', parseNumber, 8787)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--demo', 'import sample memories for demo-user and create a key when the data directory has none')
    .action(async (flags: ServeFlags) => {
      const options = globals();
      const dataDir = resolve(flags.dataDir);
      const demoKey = flags.demo ? await prepareDemo(options, dataDir) : null;
      // --store names another backend (e.g. PostgreSQL); otherwise the server opens SQLite in the data dir.
      const engram = options.store ? await openEngram(options, { formationWorker: true }, {}, dataDir) : undefined;
      const server = await startServer({
        dataDir,
        port: flags.port,
        host: flags.host,
        engram,
        closeEngram: true,
        search: engram ? { rerankers: engram.rerankerNames() } : undefined,
        defaults: { embedder: options.embedder, engram: engramOptionsFromEnv({ formationWorker: true }) },
        handleSignals: true,
        onClosed: (error) => {
          if (error) console.error(`error during shutdown: ${error instanceof Error ? error.message : String(error)}`);
          process.exit(error ? 1 : 0);
        },
      });
      console.log(`Engram listening on ${server.url} (data in ${dataDir})`);
      const built = existsSync(join(DEFAULT_INSPECTOR_ROOT, 'index.html'));
      console.log(`Memory inspector: ${server.url}/inspector/${built ? '' : ' (not built yet: npm run build:web)'}`);
      if (demoKey) console.log(`\nAPI key for tenant ${options.tenant} (shown once):\n  export ENGRAM_API_KEY=${demoKey}`);
      else console.log(`\nCreate a key with: npx engram keys create --tenant ${options.tenant} --data-dir ${flags.dataDir}`);
      console.log(`\nTry it:\n${curlExample(server.url)}\n\nCtrl-C or SIGTERM stops the server after in-flight requests finish.`);
    });
}

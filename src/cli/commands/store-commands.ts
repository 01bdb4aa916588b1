import type { Command } from 'commander';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createReadStream } from 'node:fs';
import { EngramError } from '../../model/errors.js';
import type { MemoryStore } from '../../store/memory-store.js';
import { migrateStore } from '../../store/migrate-store.js';
import { openStore } from '../../store/open-store.js';
import { exportDeletedHistory, exportTenant, importRecords, type TransferLine } from '../../store/transfer.js';
import { restoreSafety } from '../restore-safety.js';
import { DEFAULT_DATA_DIR, type GlobalOptions } from '../cli-context.js';
import { parseNumber } from '../parse-option.js';
import { createProgress } from '../progress.js';

async function withStore<T>(options: GlobalOptions, fn: (store: MemoryStore) => Promise<T>): Promise<T> {
  const store = await openStore(options.store ?? process.env['ENGRAM_STORE']);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function* readTransferFile(file: string): AsyncIterable<TransferLine> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n += 1;
    if (line.trim() === '') continue;
    try {
      yield JSON.parse(line) as TransferLine;
    } catch (error) {
      throw new EngramError('INVALID_INPUT', `${file}: line ${n} is not JSON`, { cause: error, details: { line: n } });
    }
  }
}

/** `engram migrate`, `engram export` and `engram restore`: schema and whole-tenant moves between backends. */
export function registerStoreCommands(program: Command, globals: () => GlobalOptions): void {
  program
    .command('migrate')
    .description(
      'apply pending schema migrations to --store (SQLite file or postgres:// URL); on PostgreSQL also create pgvector ' +
        'and its indexes when possible, and distribute the tables on a Citus coordinator',
    )
    .option('--citus', 'the store is a Citus coordinator: distribute the tables by tenant (detected without it)')
    .action(async (flags: { citus?: boolean }) => {
      const options = globals();
      const summary = await migrateStore(options.store ?? process.env['ENGRAM_STORE'], { citus: flags.citus });
      if (options.json) console.log(JSON.stringify(summary.report ?? { backend: summary.backend }));
      else for (const line of summary.lines) console.log(line);
    });
  program
    .command('export')
    .description('write every memory of --tenant (all users, statuses, vectors, usage and history) as JSONL')
    .option('--out <file>', 'output file (default: standard output)')
    .action(async (flags: { out?: string }) => {
      const options = globals();
      const out = flags.out ? createWriteStream(flags.out) : process.stdout;
      let count = 0;
      await withStore(options, async (store) => {
        for await (const record of exportTenant(store, options.tenant)) {
          if (!out.write(`${JSON.stringify(record)}\n`)) await once(out, 'drain');
          count += 1;
        }
        // The history of deleted memories outlives them, so the export carries it too.
        for await (const line of exportDeletedHistory(store, options.tenant)) {
          if (!out.write(`${JSON.stringify(line)}\n`)) await once(out, 'drain');
        }
      });
      if (flags.out) {
        out.end();
        await once(out, 'finish');
        console.error(`exported ${count} memories of tenant ${options.tenant} to ${flags.out}`);
      }
    });
  program
    .command('restore')
    .description(
      'import an `engram export` file into --store, keeping ids, vectors and usage (checked whole first: a bad record restores nothing)',
    )
    .argument('<file>', 'a JSONL file written by engram export')
    .option('--into-tenant <id>', 'write every record into this tenant instead of its own')
    .option('--batch <n>', 'records per transaction', parseNumber, 500)
    .option('-q, --quiet', 'no progress bar')
    .option('--data-dir <dir>', 'the server data directory whose tenant safety settings apply', DEFAULT_DATA_DIR)
    .action(async (file: string, flags: { intoTenant?: string; batch: number; quiet?: boolean; dataDir: string }) => {
      const options = globals();
      const progress = createProgress('restore', flags.quiet);
      // Restore writes to the store directly: the write-safety policy is applied here.
      const safety = restoreSafety(flags.dataDir);
      const report = await withStore(options, (store) =>
        // Read twice: the whole file is checked before anything is written.
        importRecords(store, () => readTransferFile(file), {
          batchSize: flags.batch,
          tenant: flags.intoTenant,
          onProgress: (n) => progress.update(n, null),
          prepare: safety.prepare,
          prepareHistory: safety.prepareHistory,
        }).finally(() => {
          progress.stop();
          safety.close();
        }),
      );
      const summary = { ...report, safety: safety.summary() };
      console.log(options.json ? JSON.stringify(summary) : `restored ${report.imported} memories${safety.describe()}`);
    });
}

import type { Command } from 'commander';
import { resolve } from 'node:path';
import { createKey, listKeys, revokeKey } from '../../auth/key-admin.js';
import { EngramError } from '../../model/errors.js';
import type { GlobalOptions } from '../cli-context.js';
import { parseList } from '../parse-option.js';
import { renderTable } from '../render-table.js';

/** `engram keys create|list|revoke`: API keys of the server's data directory (stored hashed). */
export function registerKeys(program: Command, globals: () => GlobalOptions): void {
  const keys = program.command('keys').description('manage API keys (stored hashed in <data-dir>/keys.sqlite)');
  keys
    .command('create')
    .description('create a key for --tenant; the secret is printed once')
    .option('--data-dir <dir>', 'the server data directory', '.engram')
    .option('--read-only', 'the key may read and search but not write')
    .option('--collections <list>', 'limit the key to these collections', parseList)
    .option('--name <label>', 'a label shown by keys list')
    .action((flags: { dataDir: string; readOnly?: boolean; collections?: string[]; name?: string }) => {
      const options = globals();
      const created = createKey({
        dataDir: resolve(flags.dataDir),
        tenant: options.tenant,
        access: flags.readOnly ? 'read' : 'read-write',
        collections: flags.collections ?? null,
        name: flags.name ?? null,
      });
      console.log(options.json ? JSON.stringify(created, null, 2) : `${created.key}\n(key ${created.info.id} for tenant ${options.tenant}; store it now, it is not shown again)`);
    });
  keys
    .command('list')
    .description('list keys (never their secrets)')
    .option('--data-dir <dir>', 'the server data directory', '.engram')
    .option('--all-tenants', 'every tenant, not just --tenant')
    .option('--revoked', 'include revoked keys')
    .action((flags: { dataDir: string; allTenants?: boolean; revoked?: boolean }) => {
      const options = globals();
      const rows = listKeys({
        dataDir: resolve(flags.dataDir),
        tenant: flags.allTenants ? undefined : options.tenant,
        includeRevoked: flags.revoked === true,
      });
      if (options.json) {
        console.log(JSON.stringify(rows, null, 2));
        return;
      }
      console.log(
        renderTable(rows, [
          { header: 'id', value: (k) => k.id },
          { header: 'tenant', value: (k) => k.tenant },
          { header: 'access', value: (k) => k.access },
          { header: 'collections', value: (k) => (k.collections ? k.collections.join(',') : '*') },
          { header: 'name', value: (k) => k.name ?? '' },
          { header: 'created', value: (k) => k.createdAt.slice(0, 16) },
          { header: 'revoked', value: (k) => (k.revokedAt ? k.revokedAt.slice(0, 16) : '') },
        ]),
      );
    });
  keys
    .command('revoke')
    .description('revoke a key by id')
    .argument('<id>', 'the key id from keys list')
    .option('--data-dir <dir>', 'the server data directory', '.engram')
    .action((id: string, flags: { dataDir: string }) => {
      if (!revokeKey({ dataDir: resolve(flags.dataDir), id })) {
        throw new EngramError('NOT_FOUND', `no active key ${id}`);
      }
      console.log(`revoked ${id}`);
    });
}

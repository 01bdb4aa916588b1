import type { Command } from 'commander';
import { resolve } from 'node:path';

import { mergeSafetyPolicy, type SafetyPolicy } from '../../safety/safety-policy.js';
import { WriteGuard } from '../../safety/write-guard.js';
import { openDataDirTenantSettings, type TenantSettingsStore } from '../../tenant/tenant-settings.js';
import { DEFAULT_DATA_DIR, safetyPolicyFromEnv, type GlobalOptions } from '../cli-context.js';
import { parseJsonObject } from '../parse-option.js';
import { renderTable } from '../render-table.js';

interface DataDirFlags {
  dataDir: string;
}

function withSettings<T>(flags: DataDirFlags, fn: (settings: TenantSettingsStore) => T): T {
  const settings = openDataDirTenantSettings(resolve(flags.dataDir));
  try {
    return fn(settings);
  } finally {
    settings.close();
  }
}

/** The policy the tenant's writes get: the defaults, the instance's (ENGRAM_SAFETY), the tenant's. */
function effectivePolicy(settings: TenantSettingsStore, tenant: string): SafetyPolicy {
  return mergeSafetyPolicy(new WriteGuard({ policy: safetyPolicyFromEnv() }).instancePolicy, settings.safetyOf(tenant));
}

function describe(policy: SafetyPolicy): string {
  const actions = Object.entries(policy.actions)
    .map(([category, action]) => `${category} ${action}`)
    .join(', ');
  const ids = policy.nationalIds.map((id) => (typeof id === 'string' ? id : id.name)).join(', ') || 'none';
  return [
    `enabled: ${policy.enabled}`,
    `actions: ${actions}`,
    `phone region: ${policy.phoneRegion ?? 'none (international formats only)'}`,
    `national ids: ${ids}`,
    `poisoning: ${policy.poisoning.action} (threshold ${policy.poisoning.threshold})`,
  ].join('\n');
}

/**
 * `engram safety show|set|clear|list`: each tenant's write-safety policy, kept in the server's
 * data directory (`<data-dir>/tenants.sqlite`) and applied over the instance's (ENGRAM_SAFETY) on
 * every write of the tenant, by the server, `engram mcp` and the CLI's own writes.
 */
export function registerSafety(program: Command, globals: () => GlobalOptions): void {
  const safety = program
    .command('safety')
    .description("manage each tenant's write-safety policy (kept in <data-dir>/tenants.sqlite)");
  const dataDir = (command: Command): Command =>
    command.option('--data-dir <dir>', 'the server data directory', DEFAULT_DATA_DIR);
  dataDir(safety.command('show'))
    .description("show --tenant's policy setting and the policy its writes get")
    .action((flags: DataDirFlags) => {
      const { tenant, json } = globals();
      withSettings(flags, (settings) => {
        const setting = settings.safetyOf(tenant) ?? null;
        const effective = effectivePolicy(settings, tenant);
        if (json) console.log(JSON.stringify({ tenant, setting, effective }, null, 2));
        else
          console.log(
            `tenant ${tenant}: ${setting ? JSON.stringify(setting) : 'no setting of its own'}\n${describe(effective)}`,
          );
      });
    });
  dataDir(safety.command('set'))
    .description("replace --tenant's policy setting (a JSON policy patch over the instance's)")
    .argument(
      '<json>',
      'e.g. \'{"actions":{"email":"mask","phone":"mask"},"poisoning":{"action":"reject"}}\'',
      parseJsonObject,
    )
    .action((patch: Record<string, unknown>, flags: DataDirFlags) => {
      const { tenant, json } = globals();
      withSettings(flags, (settings) => {
        const saved = settings.setSafety(tenant, patch);
        const effective = effectivePolicy(settings, tenant);
        if (json) console.log(JSON.stringify({ ...saved, effective }, null, 2));
        else console.log(`tenant ${saved.tenant}: ${JSON.stringify(saved.safety)}\n${describe(effective)}`);
      });
    });
  dataDir(safety.command('clear'))
    .description("remove --tenant's policy setting (its writes get the instance's policy)")
    .action((flags: DataDirFlags) => {
      const { tenant } = globals();
      const cleared = withSettings(flags, (settings) => settings.clearSafety(tenant));
      console.log(cleared ? `tenant ${tenant}: setting removed` : `tenant ${tenant} had no setting`);
    });
  dataDir(safety.command('list'))
    .description('list the tenants that have a policy setting')
    .action((flags: DataDirFlags) => {
      const rows = withSettings(flags, (settings) => settings.list());
      if (globals().json) {
        console.log(JSON.stringify(rows, null, 2));
        return;
      }
      console.log(
        renderTable(rows, [
          { header: 'tenant', value: (r) => r.tenant },
          { header: 'setting', value: (r) => JSON.stringify(r.safety) },
          { header: 'updated', value: (r) => r.updatedAt.slice(0, 16) },
        ]),
      );
    });
}

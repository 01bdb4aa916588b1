import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteDatabase, type SqliteDatabase } from '../util/sqlite-database.js';

import { EngramError } from '../model/errors.js';
import type { SafetyPolicyPatch } from '../model/safety-policy-patch.js';
import { validateScope } from '../model/validate.js';
import { validateSafetyPolicyPatch } from '../safety/safety-policy.js';
import type { TenantPolicySource } from '../safety/write-guard.js';

/** File name of the tenant settings database inside a server data directory (beside `keys.sqlite`). */
export const TENANTS_FILE = 'tenants.sqlite';

/** One tenant's settings. */
export interface TenantSettings {
  tenant: string;
  /** The tenant's write-safety policy over the instance's. */
  safety: SafetyPolicyPatch;
  /** ISO-8601 UTC. */
  updatedAt: string;
}

/**
 * Per-tenant settings of a server, in a small SQLite database of its data directory: the
 * server's Engram and `engram mcp` read them on every write, `engram safety set|clear` writes
 * them (another process: a change applies to the next write, no restart).
 */
export interface TenantSettingsStore {
  /** The tenant's safety patch, or undefined when it has none. */
  safetyOf(tenant: string): SafetyPolicyPatch | undefined;
  /**
   * Replaces the tenant's safety patch (checked first: unknown settings are refused).
   * @throws EngramError('INVALID_INPUT') naming the field; EngramError('INVALID_SCOPE') for a bad tenant.
   */
  setSafety(tenant: string, patch: unknown): TenantSettings;
  /** Removes the tenant's patch. False when it had none. */
  clearSafety(tenant: string): boolean;
  /** Every tenant with settings, by tenant. */
  list(): TenantSettings[];
  close(): void;
}

interface Row {
  tenant: string;
  safety: string;
  updated_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tenant_settings (
  tenant TEXT PRIMARY KEY,
  safety TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
`;

function parseRow(row: Row): TenantSettings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.safety);
  } catch (cause) {
    throw new EngramError('CONFIG_ERROR', `the safety setting of tenant ${row.tenant} is not JSON`, { cause });
  }
  return { tenant: row.tenant, safety: validateSafetyPolicyPatch(parsed), updatedAt: row.updated_at };
}

/** Opens (and creates when missing) the tenant settings database at `path`. */
export function openTenantSettings(options: { path: string; clock?: (() => Date) | undefined }): TenantSettingsStore {
  const clock = options.clock ?? (() => new Date());
  let db: SqliteDatabase;
  try {
    db = openSqliteDatabase(options.path);
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
  } catch (cause) {
    throw new EngramError('STORE_ERROR', `cannot open the tenant settings database ${options.path}`, { cause });
  }
  const get = db.prepare<[string], Row>('SELECT * FROM tenant_settings WHERE tenant = ?');
  const upsert = db.prepare(
    'INSERT INTO tenant_settings (tenant, safety, updated_at) VALUES (?, ?, ?) ' +
      'ON CONFLICT (tenant) DO UPDATE SET safety = excluded.safety, updated_at = excluded.updated_at',
  );
  const remove = db.prepare('DELETE FROM tenant_settings WHERE tenant = ?');
  const all = db.prepare<[], Row>('SELECT * FROM tenant_settings ORDER BY tenant');
  const tenantOf = (tenant: string): string => validateScope({ tenant }).tenant;
  return {
    safetyOf(tenant) {
      const row = get.get(tenant);
      return row === undefined ? undefined : parseRow(row).safety;
    },
    setSafety(tenant, patch) {
      const name = tenantOf(tenant);
      const safety = validateSafetyPolicyPatch(patch);
      const updatedAt = clock().toISOString();
      upsert.run(name, JSON.stringify(safety), updatedAt);
      return { tenant: name, safety, updatedAt };
    },
    clearSafety(tenant) {
      return remove.run(tenantOf(tenant)).changes > 0;
    },
    list() {
      return all.all().map(parseRow);
    },
    close() {
      if (db.open) db.close();
    },
  };
}

/** Opens the tenant settings of a data directory, creating the directory and database when missing. */
export function openDataDirTenantSettings(dataDir: string): TenantSettingsStore {
  mkdirSync(dataDir, { recursive: true });
  return openTenantSettings({ path: join(dataDir, TENANTS_FILE) });
}

/**
 * The tenants' safety policies of a data directory, for `EngramOptions.safety.tenantPolicy`. The
 * database is opened on the first lookup that finds it (a data directory without tenant
 * settings gets no file), and read on every write after that.
 */
export function dataDirTenantPolicy(dataDir: string): TenantPolicySource {
  const path = join(dataDir, TENANTS_FILE);
  let store: TenantSettingsStore | undefined;
  return {
    policyOf(tenant) {
      if (store === undefined) {
        if (!existsSync(path)) return undefined;
        store = openTenantSettings({ path });
      }
      return store.safetyOf(tenant);
    },
    close() {
      store?.close();
      store = undefined;
    },
  };
}

import { EngramError } from '../model/errors.js';
import { validateScope } from '../model/validate.js';
import { openSqliteDatabase, type SqliteDatabase } from '../util/sqlite-database.js';
import {
  digestsEqual,
  generateKeySecret,
  hashKeySecret,
  parseKeySecret,
  type ApiKeyInfo,
  type KeyAccess,
  type Principal,
} from './api-key.js';

/** Options of {@link KeyStore.create}. */
export interface CreateKeyInput {
  tenant: string;
  /** @default 'read-write' */
  access?: KeyAccess | undefined;
  /** Limit the key to these collections. @default every collection of the tenant */
  collections?: string[] | null | undefined;
  /** A label shown by `engram keys list`. @default null */
  name?: string | null | undefined;
}

/** A created key: the secret is returned once and never stored. */
export interface CreatedKey {
  key: string;
  info: ApiKeyInfo;
}

/** Verifies presented keys; what the server needs from a key store. */
export interface KeyVerifier {
  /** The principal of an active key, or null for an unknown, malformed or revoked key. */
  verify(presented: string): Principal | null;
}

/** API keys kept hashed in a small SQLite database. */
export interface KeyStore extends KeyVerifier {
  create(input: CreateKeyInput): CreatedKey;
  /** Keys of one tenant or all, newest first. @default active keys only */
  list(options?: { tenant?: string | undefined; includeRevoked?: boolean | undefined }): ApiKeyInfo[];
  /** Revokes a key by id. False when there is no active key with that id. */
  revoke(id: string): boolean;
  close(): void;
}

/** Options of {@link openKeyStore}. */
export interface KeyStoreOptions {
  /** SQLite file, or `:memory:`. */
  path: string;
  /** @default () => new Date() */
  clock?: (() => Date) | undefined;
  /** Random bytes source. @default crypto.randomBytes */
  random?: ((size: number) => Buffer) | undefined;
}

interface KeyRow {
  id: string;
  name: string | null;
  tenant: string;
  access: string;
  collections: string | null;
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS api_keys (
  id TEXT PRIMARY KEY,
  name TEXT,
  tenant TEXT NOT NULL,
  access TEXT NOT NULL CHECK (access IN ('read', 'read-write')),
  collections TEXT,
  hash TEXT NOT NULL,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant);
`;

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    name: row.name,
    tenant: row.tenant,
    access: row.access === 'read' ? 'read' : 'read-write',
    collections: row.collections === null ? null : (JSON.parse(row.collections) as string[]),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function checkCollections(value: CreateKeyInput['collections']): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0) {
    throw new EngramError('INVALID_INPUT', 'collections must be a non-empty list (or omitted for all collections)', {
      details: { field: 'collections' },
    });
  }
  return [...new Set(value.map((c, i) => validateScope({ tenant: 't', collection: c }, `collections[${i}]`).collection as string))];
}

/** Opens (and creates when missing) the key database at `path`. */
export function openKeyStore(options: KeyStoreOptions): KeyStore {
  const clock = options.clock ?? (() => new Date());
  let db: SqliteDatabase;
  try {
    db = openSqliteDatabase(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(SCHEMA);
  } catch (cause) {
    throw new EngramError('STORE_ERROR', `cannot open the key database ${options.path}`, { cause });
  }
  const byId = db.prepare<[string], KeyRow>('SELECT * FROM api_keys WHERE id = ?');
  const insert = db.prepare(
    'INSERT INTO api_keys (id, name, tenant, access, collections, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const revoke = db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');

  return {
    create(input) {
      const tenant = validateScope({ tenant: input?.tenant }).tenant;
      const access = input.access ?? 'read-write';
      if (access !== 'read' && access !== 'read-write') {
        throw new EngramError('INVALID_INPUT', "access must be 'read' or 'read-write'", { details: { field: 'access' } });
      }
      const collections = checkCollections(input.collections);
      const name = input.name ?? null;
      if (name !== null && (typeof name !== 'string' || name.length > 256)) {
        throw new EngramError('INVALID_INPUT', 'name must be a string of at most 256 characters', { details: { field: 'name' } });
      }
      const { id, secret } = generateKeySecret(options.random);
      const createdAt = clock().toISOString();
      insert.run(id, name, tenant, access, collections === null ? null : JSON.stringify(collections), hashKeySecret(secret), createdAt);
      return { key: secret, info: { id, name, tenant, access, collections, createdAt, revokedAt: null } };
    },
    list(listOptions = {}) {
      const where: string[] = [];
      const params: string[] = [];
      if (listOptions.tenant !== undefined) {
        where.push('tenant = ?');
        params.push(listOptions.tenant);
      }
      if (!listOptions.includeRevoked) where.push('revoked_at IS NULL');
      const sql = `SELECT * FROM api_keys ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id`;
      return db.prepare<string[], KeyRow>(sql).all(...params).map(toInfo);
    },
    revoke(id) {
      return revoke.run(clock().toISOString(), String(id)).changes > 0;
    },
    verify(presented) {
      if (typeof presented !== 'string') return null;
      const parsed = parseKeySecret(presented.trim());
      if (!parsed) return null;
      const row = byId.get(parsed.id);
      // Compare even when the id is unknown so timing does not reveal which ids exist.
      const expected = row?.hash ?? '0'.repeat(64);
      const matches = digestsEqual(hashKeySecret(presented.trim()), expected);
      if (!row || !matches || row.revoked_at !== null) return null;
      const info = toInfo(row);
      return { keyId: info.id, tenant: info.tenant, access: info.access, collections: info.collections };
    },
    close() {
      if (db.open) db.close();
    },
  };
}

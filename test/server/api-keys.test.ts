import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { parseKeySecret } from '../../src/auth/api-key.js';
import { createKey, KEYS_FILE, listKeys, openDataDirKeyStore, revokeKey } from '../../src/auth/key-admin.js';
import { openKeyStore } from '../../src/auth/key-store.js';
import { EngramError } from '../../src/model/errors.js';

const dataDir = mkdtempSync(join(tmpdir(), 'engram-keys-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('stores only the SHA-256 of a key, never the secret', () => {
  const { key, info } = createKey({ dataDir, tenant: 'acme', access: 'read', collections: ['work', 'work', 'home'], name: 'ci' });
  expect(info).toMatchObject({ tenant: 'acme', access: 'read', collections: ['work', 'home'], name: 'ci', revokedAt: null });
  expect(parseKeySecret(key)?.id).toBe(info.id);
  const files = readdirSync(dataDir).filter((f) => f.startsWith(KEYS_FILE));
  const bytes = Buffer.concat(files.map((f) => readFileSync(join(dataDir, f))));
  const secretPart = parseKeySecret(key)?.secretPart as string;
  expect(bytes.includes(Buffer.from(secretPart))).toBe(false);
  expect(bytes.includes(Buffer.from(createHash('sha256').update(key).digest('hex')))).toBe(true);
});

it('verifies the exact key only; revoked, tampered and foreign keys fail', () => {
  const store = openDataDirKeyStore({ dataDir });
  try {
    const a = store.create({ tenant: 'acme' });
    const b = store.create({ tenant: 'globex', collections: ['x'] });
    expect(store.verify(a.key)).toEqual({ keyId: a.info.id, tenant: 'acme', access: 'read-write', collections: null });
    expect(store.verify(b.key)).toMatchObject({ tenant: 'globex', collections: ['x'] });
    const flipped = a.key.slice(0, -1) + (a.key.endsWith('A') ? 'B' : 'A');
    expect(store.verify(flipped)).toBeNull();
    // Secret of one key with the id of another.
    expect(store.verify(`egk_${b.info.id}_${parseKeySecret(a.key)?.secretPart}`)).toBeNull();
    expect(store.verify('')).toBeNull();
    expect(store.verify('egk_short')).toBeNull();
    expect(store.verify(`${a.key} `)).not.toBeNull();
    expect(store.revoke(a.info.id)).toBe(true);
    expect(store.verify(a.key)).toBeNull();
    expect(store.revoke(a.info.id)).toBe(false);
    expect(store.revoke('k-unknown')).toBe(false);
  } finally {
    store.close();
  }
});

it('lists by tenant, newest first, hides revoked keys unless asked', () => {
  const store = openKeyStore({ path: ':memory:', clock: (() => { let t = 0; return () => new Date(Date.UTC(2025, 0, 1, 0, 0, t++)); })() });
  const first = store.create({ tenant: 't1', name: 'first' });
  const second = store.create({ tenant: 't1', name: 'second' });
  store.create({ tenant: 't2' });
  expect(store.list({ tenant: 't1' }).map((k) => k.name)).toEqual(['second', 'first']);
  expect(store.list().length).toBe(3);
  store.revoke(second.info.id);
  expect(store.list({ tenant: 't1' }).map((k) => k.id)).toEqual([first.info.id]);
  expect(store.list({ tenant: 't1', includeRevoked: true }).map((k) => k.revokedAt === null)).toEqual([false, true]);
  store.close();
});

it('rejects bad tenants, access values and collections with stable codes', () => {
  const codeOf = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return (error as EngramError).code;
    }
    return 'no error';
  };
  expect(codeOf(() => createKey({ dataDir, tenant: '' }))).toBe('INVALID_SCOPE');
  expect(codeOf(() => createKey({ dataDir, tenant: 'a\u0000b' }))).toBe('INVALID_SCOPE');
  expect(codeOf(() => createKey({ dataDir, tenant: 'acme', access: 'admin' as 'read' }))).toBe('INVALID_INPUT');
  expect(codeOf(() => createKey({ dataDir, tenant: 'acme', collections: [] }))).toBe('INVALID_INPUT');
  expect(codeOf(() => createKey({ dataDir, tenant: 'acme', collections: [''] }))).toBe('INVALID_SCOPE');
  expect(listKeys({ dataDir, tenant: '' })).toEqual([]);
  expect(revokeKey({ dataDir, id: 'nope' })).toBe(false);
});

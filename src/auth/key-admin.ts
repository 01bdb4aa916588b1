import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ApiKeyInfo } from './api-key.js';
import { openKeyStore, type CreateKeyInput, type CreatedKey, type KeyStore } from './key-store.js';

/** File name of the key database inside a data directory. */
export const KEYS_FILE = 'keys.sqlite';

/** Where the server and the CLI keep keys. */
export interface KeyLocation {
  /** The server's data directory; keys live in `<dataDir>/keys.sqlite`. */
  dataDir: string;
}

/** Opens the key store of a data directory, creating the directory when missing. */
export function openDataDirKeyStore(location: KeyLocation): KeyStore {
  mkdirSync(location.dataDir, { recursive: true });
  return openKeyStore({ path: join(location.dataDir, KEYS_FILE) });
}

function withStore<T>(location: KeyLocation, fn: (store: KeyStore) => T): T {
  const store = openDataDirKeyStore(location);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** `engram keys create`: a new key for a tenant. The secret in the result is shown once. */
export function createKey(options: KeyLocation & CreateKeyInput): CreatedKey {
  return withStore(options, (store) => store.create(options));
}

/** `engram keys list`: active keys (all when `includeRevoked`), without secrets. */
export function listKeys(options: KeyLocation & { tenant?: string; includeRevoked?: boolean }): ApiKeyInfo[] {
  return withStore(options, (store) => store.list(options));
}

/** `engram keys revoke`: false when no active key has this id. */
export function revokeKey(options: KeyLocation & { id: string }): boolean {
  return withStore(options, (store) => store.revoke(options.id));
}

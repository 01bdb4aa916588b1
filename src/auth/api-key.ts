import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a key may do: `read` (get, list, stats, recall, search, inject) or `read-write` (also add, update, delete). */
export const KEY_ACCESS_LEVELS = ['read', 'read-write'] as const;
export type KeyAccess = (typeof KEY_ACCESS_LEVELS)[number];

/** The identity a request acts as, derived from its API key and never from its body. */
export interface Principal {
  /** Id of the key (the public part of the secret), for logs. */
  keyId: string;
  /** The only tenant this principal can see. */
  tenant: string;
  access: KeyAccess;
  /** Collections the key is limited to, or null for every collection of the tenant. */
  collections: string[] | null;
}

/** A stored key as listed by `engram keys list`; never contains the secret or its hash. */
export interface ApiKeyInfo {
  /** Public id, e.g. `k3f9a0c2d11e4`; the secret starts with `egk_<id>_`. */
  id: string;
  /** Free-form label. */
  name: string | null;
  tenant: string;
  access: KeyAccess;
  collections: string[] | null;
  /** ISO-8601 UTC. */
  createdAt: string;
  /** ISO-8601 UTC, or null while the key is active. */
  revokedAt: string | null;
}

const KEY_PATTERN = /^egk_([a-z0-9]{13})_([A-Za-z0-9_-]{43})$/;

/** A fresh key id and secret. The secret is `egk_<id>_<base64url of 32 random bytes>`. */
export function generateKeySecret(random: (size: number) => Buffer = randomBytes): { id: string; secret: string } {
  const id = `k${random(6).toString('hex')}`;
  const secret = `egk_${id}_${random(32).toString('base64url')}`;
  return { id, secret };
}

/** Splits a presented key into its id and secret part, or null when it is not shaped like a key. */
export function parseKeySecret(presented: string): { id: string; secretPart: string } | null {
  const match = KEY_PATTERN.exec(presented);
  if (!match) return null;
  return { id: match[1] as string, secretPart: match[2] as string };
}

/** SHA-256 of the whole key, hex. Only this is stored. */
export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

import type { Memory } from '../../src/model/memory.js';

/**
 * A complete Memory value for unit tests of pure functions. Its validity reads like a stored row
 * written without one: from `statedAt ?? createdAt`, open, version 1.
 */
export function memory(id: string, text: string, patch: Partial<Memory> = {}): Memory {
  const createdAt = patch.createdAt ?? '2026-01-01T00:00:00.000Z';
  return {
    id,
    text,
    type: 'LongTermMemory',
    key: null,
    tags: [],
    level: null,
    summary: null,
    background: null,
    sources: [],
    scope: { tenant: 't' },
    metadata: {},
    statedAt: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    status: 'activated',
    usage: { count: 0, lastUsedAt: null },
    embedding: null,
    validFrom: patch.statedAt ?? createdAt,
    validTo: null,
    supersededBy: null,
    version: 1,
    ...patch,
  };
}

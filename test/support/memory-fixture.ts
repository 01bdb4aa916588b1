import type { Memory } from '../../src/model/memory.js';

/** A complete Memory value for unit tests of pure functions. */
export function memory(id: string, text: string, patch: Partial<Memory> = {}): Memory {
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
    ...patch,
  };
}

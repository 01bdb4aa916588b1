import type { RecallOptions, RecallResult } from '../../../src/model/api.js';
import type { Hit } from '../../../src/model/hit.js';
import type { Memory, MemoryInput } from '../../../src/model/memory.js';
import type { Scope } from '../../../src/model/scope.js';
import type { MemoryWriter, Recaller } from '../../../src/inject/recaller.js';
import { memory as baseMemory } from '../../support/memory-fixture.js';

export const SCOPE: Scope = { tenant: 't1', user: 'u1', session: 's1' };

let counter = 0;

/** A complete, real `Memory` value with a fresh id, in {@link SCOPE}. */
export function memory(text: string, overrides: Partial<Memory> = {}): Memory {
  counter += 1;
  return baseMemory(`m-${counter}`, text, {
    scope: SCOPE,
    createdAt: '2026-01-02T03:04:05.000Z',
    updatedAt: '2026-01-02T03:04:05.000Z',
    embedding: { model: 'test', dim: 3 },
    ...overrides,
  });
}

export function hit(m: Memory, score = 0.8): Hit {
  return {
    memory: m,
    score,
    explanation: {
      channels: ['dense'],
      cosine: score,
      bm25: 0,
      bm25Raw: 0,
      denseWeight: 0.85,
      lexicalWeight: 0.15,
      fused: score,
    },
  };
}

/**
 * An injected dependency for tests: returns fixed hits for every query and records the calls.
 * It stands in for the facade, not for any code under test.
 */
export class FixedRecaller implements Recaller {
  readonly calls: Array<{ query: string; options: RecallOptions }> = [];
  constructor(
    private readonly hits: Hit[],
    private readonly behaviour: { delayMs?: number; fail?: Error; cut?: Hit[] } = {},
  ) {}

  async recall(query: string, options: RecallOptions): Promise<RecallResult> {
    this.calls.push({ query, options });
    if (this.behaviour.delayMs !== undefined) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, this.behaviour.delayMs);
        options.signal?.addEventListener('abort', () => {
          clearTimeout(t);
          reject(options.signal?.reason);
        });
      });
    }
    if (this.behaviour.fail !== undefined) throw this.behaviour.fail;
    return {
      query,
      hits: this.hits,
      cut: this.behaviour.cut ?? [],
      withheld: [],
      poolSize: this.hits.length,
      timings: { embedMs: 1, denseMs: 1, lexicalMs: 1, rankMs: 1, totalMs: 4 },
    };
  }
}

/** Records what capture stores; can be told to fail. */
export class RecordingWriter implements MemoryWriter {
  readonly batches: Array<{ inputs: MemoryInput[]; scope: Scope }> = [];
  constructor(private readonly fail?: Error) {}
  async addMany(inputs: MemoryInput[], options: { scope: Scope }): Promise<Memory[]> {
    if (this.fail !== undefined) throw this.fail;
    this.batches.push({ inputs, scope: options.scope });
    return inputs.map((i) => memory(i.text));
  }
}

/** Deep-freezes a value so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !(value instanceof Uint8Array)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

export const PEANUTS = memory('User is allergic to peanuts', {
  statedAt: '2026-05-01T09:30:00Z',
  summary: 'Food allergies',
});
export const SPICY = memory('User prefers spicy food', { statedAt: null, createdAt: '2026-06-12T18:05:59Z' });
export const HITS = [hit(PEANUTS, 0.9), hit(SPICY, 0.7)];

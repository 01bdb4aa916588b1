import { applyOperations, type StoredMemory } from '../../../src/formation/apply-operations.js';
import type { ApplyContext } from '../../../src/formation/formation-store.js';
import type { HistoryEvent } from '../../../src/formation/history.js';
import type { NeighbourFinder } from '../../../src/formation/neighbours.js';
import type { FormationOp } from '../../../src/formation/operations.js';
import { isCurrent, isValidAt } from '../../../src/formation/temporal.js';
import type { Scope } from '../../../src/model/scope.js';
import { cosine } from '../../../src/vector/cosine.js';
import { HashedEmbedder } from '../../support/hashed-embedder.js';
import { memory } from '../../support/memory-fixture.js';

/**
 * One tenant's formed memories held by the reference semantics (`applyOperations`), with a
 * neighbour finder over them (hashed bag-of-words cosine, current memories only): the stand-in
 * for a phase-2 store in tests of formation's own logic.
 */
export class MemoryWorld {
  state = new Map<string, StoredMemory>();
  history: HistoryEvent[] = [];
  readonly embedder = new HashedEmbedder({ dim: 256 });
  private seq = 0;

  /**
   * @param minCosine neighbours below it are not returned (0: the nearest `limit` whatever they are)
   */
  constructor(
    readonly scope: Scope = { tenant: 't', user: 'ana' },
    private readonly minCosine = 0.2,
  ) {}

  /** Ids of new memories: f1, f2, … */
  newId = (): string => `f${++this.seq}`;

  seed(id: string, text: string, patch: Partial<StoredMemory> = {}): StoredMemory {
    const m: StoredMemory = memory(id, text, { scope: this.scope, ...patch });
    this.state.set(id, m);
    return m;
  }

  neighbours: NeighbourFinder = async (candidate, { limit }) => {
    const current = [...this.state.values()].filter(isCurrent);
    if (current.length === 0) return [];
    const [query, ...vectors] = await this.embedder.embed([candidate.text, ...current.map((m) => m.text)]);
    return current
      .map((m, i) => ({ memory: m, cosine: cosine(query as Float32Array, vectors[i] as Float32Array) }))
      .filter((n) => n.cosine > this.minCosine)
      .sort((a, b) => b.cosine - a.cosine)
      .slice(0, limit);
  };

  apply(operations: FormationOp[], at = '2026-03-04T12:00:00.000Z'): HistoryEvent[] {
    const context: ApplyContext = {
      tenant: this.scope.tenant,
      scope: this.scope,
      at,
      cause: { type: 'formation', jobId: 'job', windowKey: 'w', extractor: 'x', consolidator: 'c', decidedBy: 'llm' },
      caller: { kind: 'system', id: null },
    };
    const result = applyOperations(this.state, operations, context, () => `h${this.history.length + 1}`);
    this.state = result.state;
    this.history.push(...result.history);
    return result.history;
  }

  /** Texts of the memories valid at `at`, sorted. */
  validAt(at: string): string[] {
    return [...this.state.values()]
      .filter((m) => isValidAt(m, at))
      .map((m) => m.text)
      .sort();
  }

  current(): StoredMemory[] {
    return [...this.state.values()].filter(isCurrent);
  }

  /** Texts of the current memories with this key. */
  currentWithKey(key: string): string[] {
    return this.current()
      .filter((m) => m.key === key)
      .map((m) => m.text);
  }
}

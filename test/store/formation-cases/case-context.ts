import { expect } from 'vitest';
import type { FormationStore } from '../../../src/model/formation/formation-store.js';
import type { MemoryStore } from '../../../src/store/memory-store.js';
import type { ChildStoreSpec } from '../fixtures/child-store-spec.js';

/**
 * What the formation cases of the conformance suite get from `runStoreConformance`: its test
 * registration (names are skippable like every other case), the current store and fresh tenants.
 */
export interface CaseContext {
  test(title: string, fn: () => Promise<void>, unsupported?: string): void;
  store(): MemoryStore;
  tenant(label?: string): string;
  /** How a child process opens this same database; absent for databases only this process can reach. */
  childSpec?: (() => ChildStoreSpec) | undefined;
}

/** The store's formation storage (every SQL store has one). */
export function formationOf(store: MemoryStore): FormationStore {
  expect(store.formation, `${store.kind} offers formation storage`).toBeDefined();
  return store.formation as FormationStore;
}

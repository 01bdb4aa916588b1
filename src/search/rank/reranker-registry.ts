import { EngramError } from '../../model/errors.js';
import { createCosineLocalReranker } from './cosine-local-reranker.js';
import { noopReranker } from './noop-reranker.js';
import type { Reranker } from './reranker.js';

/**
 * Rerankers by name. `noop` and `cosine-local` are always there; register an `http` reranker
 * (or any other) with its endpoint. Lookups of unknown names list what is available.
 */
export class RerankerRegistry {
  private readonly entries = new Map<string, Reranker>();

  constructor(rerankers: Reranker[] = []) {
    this.register(noopReranker);
    this.register(createCosineLocalReranker());
    for (const r of rerankers) this.register(r);
  }

  /** Adds or replaces the reranker under its name (or `name`). */
  register(reranker: Reranker, name: string = reranker.name): this {
    this.entries.set(name, reranker);
    return this;
  }

  /** Registered names, sorted. */
  names(): string[] {
    return [...this.entries.keys()].sort();
  }

  /**
   * The reranker called `name`. An unknown name is the caller's mistake (it comes with a search),
   * so it is INVALID_INPUT listing the available names, the same code at every entry point.
   */
  get(name: string): Reranker {
    const found = this.entries.get(name);
    if (!found) {
      throw new EngramError('INVALID_INPUT', `unknown reranker "${name}"; available: ${this.names().join(', ')}`, {
        details: { field: 'reranker', reranker: name, available: this.names() },
      });
    }
    return found;
  }
}

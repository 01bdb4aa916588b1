import type { Embedder, EmbedRole } from '../embed/embedder.js';
import { EngramError } from '../model/errors.js';
import type { Scope } from '../model/scope.js';
import { validateGivenVector, validateVector, type NormalizedInput } from '../model/validate.js';
import type { MemoryStore } from '../store/memory-store.js';
import { ALL_STATUSES, partitionKey } from './request-checks.js';

/**
 * The facade's embedding of texts and its model check: every vector checked, every scope's
 * (tenant, user) partition held to one embedding model and dimension, callers' vectors checked
 * against it. Knows which model each partition holds once it has asked the store.
 */
export class ScopeEmbedding {
  /** Embedding model known to be in each (tenant, user) partition. */
  private readonly models = new Map<string, { model: string; dim: number } | null>();

  constructor(
    private readonly store: MemoryStore,
    private readonly embedder: Embedder,
    private readonly withRetry: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  /** The scope's partition now holds vectors of `embedding` (after a write). */
  remember(scope: Scope, embedding: { model: string; dim: number }): void {
    this.models.set(partitionKey(scope), embedding);
  }

  /** Forgets what the scope's partition holds (after a re-embed). */
  forget(scope: Scope): void {
    this.models.delete(partitionKey(scope));
  }

  /**
   * Embeds texts as `role` ('query' for recall, 'document' for what is stored). The embedder
   * checks its own answers (the facade's is wrapped in `withCheckedVectors`).
   */
  async embed(texts: string[], role: EmbedRole): Promise<Float32Array[]> {
    return this.embedder.embed(texts, { role });
  }

  /** Throws MODEL_MISMATCH when the scope's partition already holds vectors of another model. */
  async checkModel(scope: Scope): Promise<void> {
    const key = partitionKey(scope);
    let known = this.models.get(key);
    if (known === undefined) {
      const stats = await this.withRetry(() =>
        this.store.stats({ scope: { tenant: scope.tenant, user: scope.user }, statuses: ALL_STATUSES }),
      );
      const first = stats.models[0];
      known = first ? { model: first.model, dim: first.dim } : null;
      if (stats.models.length > 1) {
        throw new EngramError(
          'MODEL_MISMATCH',
          `scope ${key} mixes embedding models (${stats.models.map((m) => `${m.model}/${m.dim}`).join(', ')}); run \`engram reembed\``,
          { details: { models: stats.models } },
        );
      }
      if (known) this.models.set(key, known);
    }
    const dimKnown = this.embedder.dim > 0;
    if (known && (known.model !== this.embedder.model || (dimKnown && known.dim !== this.embedder.dim))) {
      throw new EngramError(
        'MODEL_MISMATCH',
        `scope ${key} holds vectors of ${known.model} (${known.dim} dims) but this Engram embeds with ` +
          `${this.embedder.model} (${this.embedder.dim} dims); re-embed the scope with \`engram reembed\` or open with the same embedder`,
        { details: { stored: known, embedder: { model: this.embedder.model, dim: this.embedder.dim } } },
      );
    }
  }

  /**
   * The dimension a vector in this scope must have: the embedder's, else (a remote embedder that
   * learns it from its first answer) the one the scope's vectors have; undefined when neither is known.
   */
  expectedDim(scope: Scope): number | undefined {
    if (this.embedder.dim > 0) return this.embedder.dim;
    return this.models.get(partitionKey(scope))?.dim ?? undefined;
  }

  /**
   * The dimension of the scope's model. An embedder that learns its dimension from its first
   * answer (a remote one) is asked once, with `probe`: a caller's vector is never the first to
   * set it.
   */
  async modelDim(scope: Scope, probe: string): Promise<number> {
    const known = this.expectedDim(scope);
    if (known !== undefined) return known;
    const [v] = (await this.embed([probe.trim() === '' ? 'dimension' : probe], 'document')) as [Float32Array];
    return this.embedder.dim > 0 ? this.embedder.dim : v.length;
  }

  /** A caller's vector for this scope (after {@link ScopeEmbedding.checkModel}): checked as every entry point checks it. */
  async givenVector(value: unknown, scope: Scope, field: string, probe: string): Promise<Float32Array> {
    const vector = validateGivenVector(value, undefined, field);
    validateVector(vector, await this.modelDim(scope, probe), field);
    return vector;
  }

  /**
   * The vectors of a batch: the callers' where given (checked against the scope's dimension),
   * the embedder's for the rest, all of one dimension.
   */
  async batchVectors(normalized: NormalizedInput[], scope: Scope): Promise<Float32Array[]> {
    const missing = normalized.flatMap((n, i) => (n.vector === undefined ? [i] : []));
    const embedded =
      missing.length === 0
        ? []
        : await this.embed(
            missing.map((i) => (normalized[i] as NormalizedInput).text),
            'document',
          );
    const dim = embedded[0]?.length ?? (await this.modelDim(scope, (normalized[0] as NormalizedInput).text));
    return normalized.map((n, i) => {
      const vector = n.vector ?? (embedded[missing.indexOf(i)] as Float32Array);
      validateVector(vector, dim, `memories[${i}].vector`);
      return vector;
    });
  }
}

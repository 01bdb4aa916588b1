import { randomUUID } from 'node:crypto';
import type { ListRequest, MemoryApi, RecallResult, Scoped, WriteOptions } from './model/api.js';
import type { Embedder } from './embed/embedder.js';
import { withCheckedVectors } from './embed/with-checked-vectors.js';
import { EngramError } from './model/errors.js';
import type { Memory, MemoryInput, MemoryPatch } from './model/memory.js';
import type { Scope } from './model/scope.js';
import {
  DEFAULT_LIMITS,
  validateLimit,
  validateMemoryInput,
  validatePatch,
  validateScope,
  validateText,
  type InputLimits,
} from './model/validate.js';
import { calibrateFusion, type CalibrateFusionOptions, type FusionCalibration } from './recall/calibrate-fusion.js';
import { TokenCache } from './recall/token-cache.js';
import type { MemoryRecord, MemoryStore } from './store/memory-store.js';
import type { MemoryFilter, Page, ScopeStats } from './model/memory-filter.js';
import { isTransientStoreError } from './store/transient-error.js';
import { retry } from './util/retry.js';
import { LIST_DIRECTIONS, LIST_ORDERS } from './model/memory-filter.js';
import { FILTER_FIELD_NAMES, LIST_REQUEST_FIELD_NAMES, rejectUnknownFields } from './model/request-fields.js';
import { validateSearchOptions } from './model/validate-search-options.js';
import type { Searcher } from './search/searcher.js';
import type { SearchOptions } from './model/search-options.js';
import type { SearchResult } from './model/search-result.js';
import type { WarmReport } from './model/warm-report.js';
import { warmUp } from './recall/warm-up.js';
import { WriteGuard } from './safety/write-guard.js';
import { resolveValidity } from './model/resolve-validity.js';
import type {
  FormationJobsRequest,
  FormationStatus,
  HistoryRequest,
  RememberOptions,
  RememberResult,
} from './model/formation/formation-api.js';
import type { HistoryEvent } from './model/formation/history.js';
import type { FormationJob } from './model/formation/work-queue.js';
import { withValidity } from './model/distinct-hits.js';
import type { FormationService } from './formation/formation-service.js';
import type { EngramOptions, LocalRecallOptions, RecallDefaults } from './facade/engram-options.js';
import { checkOneOf, writeContext } from './facade/request-checks.js';
import { ScopeEmbedding } from './facade/scope-embedding.js';
import type { FacadeContext } from './facade/facade-context.js';
import { scopeFilter } from './facade/scope-filter.js';
import { UsageRecorder } from './facade/usage-recorder.js';
import { recallInScope } from './facade/recall-in-scope.js';
import { warmRecall } from './facade/warm-recall.js';
import { openSearcher } from './facade/open-searcher.js';
import { openFacadeFormation, requireFormation } from './facade/facade-formation.js';
import { reembedPartition, type ReembedOptions } from './facade/reembed-partition.js';

export type { EngramEvent, EngramOptions, LocalRecallOptions, RecallDefaults } from './facade/engram-options.js';
export type { ReembedOptions } from './facade/reembed-partition.js';

/**
 * The in-process memory layer: validated, scoped writes and the reference hybrid recall with
 * Engram's improvements. Every call names its scope; the instance holds no "current user".
 */
export class Engram implements MemoryApi {
  readonly store: MemoryStore;
  readonly embedder: Embedder;
  private readonly limits: InputLimits;
  private readonly recallDefaults: RecallDefaults;
  private readonly options: EngramOptions;
  private readonly clock: () => Date;
  private readonly generateId: () => string;
  /** Embeds texts and holds each partition to one embedding model. */
  private readonly embedding: ScopeEmbedding;
  /** Recalled memories' use, recorded in the background. */
  private readonly usage: UsageRecorder;
  private readonly guard: WriteGuard;
  /** What the facade's parts (src/facade) share of this instance. */
  private readonly context: FacadeContext;
  /** Null when the store has no formation storage (a custom store). */
  private readonly formation: FormationService | null;
  private searcherInstance: Searcher | undefined;
  private closed = false;

  private constructor(options: EngramOptions) {
    this.options = options;
    this.store = options.store;
    // Every answer of the embedder is checked once here: each entry point then fails alike (EMBEDDER_ERROR).
    this.embedder = withCheckedVectors(options.embedder);
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.recallDefaults = { limit: 5, threshold: 0.1, profile: 'engram', ...options.recall };
    this.clock = options.clock ?? (() => new Date());
    this.generateId = options.generateId ?? randomUUID;
    this.guard = new WriteGuard(options.safety);
    this.embedding = new ScopeEmbedding(this.store, this.embedder, (fn) => this.withRetry(fn));
    this.usage = new UsageRecorder({
      store: this.store,
      clock: this.clock,
      withRetry: (fn) => this.withRetry(fn),
      onError: (error) => this.options.onEvent?.({ type: 'usage-error', error }),
      flushAfterMs: options.usageFlushMs,
    });
    this.context = {
      options,
      store: this.store,
      embedder: this.embedder,
      embedding: this.embedding,
      guard: this.guard,
      limits: this.limits,
      recallDefaults: this.recallDefaults,
      clock: this.clock,
      generateId: this.generateId,
      // Candidates' tokens, reused across recalls (keyed by id and last update).
      tokenCache: new TokenCache(),
      withRetry: (fn) => this.withRetry(fn),
      recordUsage: (tenant, ids) => this.usage.record(tenant, ids),
    };
    this.formation = openFacadeFormation(this.context, (query, options) => this.recallWith(query, options, false));
  }

  private formationOf(): FormationService {
    this.ensureOpen();
    return requireFormation(this.formation, this.store.kind);
  }

  /** Opens Engram over a store and an embedder, applying pending store migrations. */
  static async open(options: EngramOptions): Promise<Engram> {
    const flushMs = options.usageFlushMs;
    if (flushMs !== undefined && !(typeof flushMs === 'number' && Number.isFinite(flushMs) && flushMs >= 0)) {
      throw new EngramError('CONFIG_ERROR', 'usageFlushMs must be a number of milliseconds ≥ 0');
    }
    await options.store.migrate();
    return new Engram(options);
  }

  private ensureOpen(): void {
    if (this.closed) throw new EngramError('STORE_CLOSED', 'this Engram instance is closed');
  }

  private withRetry<T>(fn: () => Promise<T>): Promise<T> {
    return retry(fn, {
      retries: this.options.storeRetries ?? 3,
      baseMs: 20,
      maxMs: 1_000,
      isRetryable: isTransientStoreError,
      onRetry: (error: unknown, attempt: number) =>
        this.options.onEvent?.({ type: 'store-retry', error, detail: { attempt } }),
    });
  }

  /** Adds one memory. */
  async add(input: MemoryInput, options: WriteOptions): Promise<Memory> {
    const [memory] = await this.addMany([input], options);
    return memory as Memory;
  }

  /** Adds all memories in one transaction, or none. */
  async addMany(inputs: MemoryInput[], options: WriteOptions): Promise<Memory[]> {
    this.ensureOpen();
    const scope = validateScope(options?.scope);
    if (!Array.isArray(inputs) || inputs.length === 0) {
      throw new EngramError('INVALID_INPUT', 'memories must be a non-empty array', { details: { field: 'memories' } });
    }
    const policy = await this.guard.policy(scope.tenant, options.safety);
    const validated = inputs.map((input, i) => validateMemoryInput(input, this.limits, `memories[${i}]`));
    // A caller's vector encodes the text as sent: once the guard masks that text, embed the masked one.
    const normalized = this.guard
      .inputs(validated, policy)
      .map((n, i) => (n.vector !== undefined && n.text !== validated[i]?.text ? { ...n, vector: undefined } : n));
    const ids = new Set<string>();
    for (const n of normalized) {
      if (n.id !== undefined && ids.has(n.id)) {
        throw new EngramError('CONFLICT', `duplicate id ${n.id} in the batch`, { details: { id: n.id } });
      }
      if (n.id !== undefined) ids.add(n.id);
    }
    await this.embedding.checkModel(scope);
    const vectors = await this.embedding.batchVectors(normalized, scope);
    const now = this.clock().toISOString();
    const embedding = { model: this.embedder.model, dim: (vectors[0] as Float32Array).length };
    const records: MemoryRecord[] = normalized.map(({ vector: _given, ...n }, i) => ({
      ...n,
      id: n.id ?? this.generateId(),
      scope,
      createdAt: now,
      updatedAt: now,
      embedding,
      vector: vectors[i] as Float32Array,
    }));
    await this.withRetry(() => this.store.insert(records, writeContext('add', options)));
    this.embedding.remember(scope, embedding);
    return this.withRetry(() =>
      this.store.get(
        scope.tenant,
        records.map((r) => r.id),
      ),
    );
  }

  /** The memory with this id in the scope's tenant, or null. */
  async get(id: string, options: Scoped): Promise<Memory | null> {
    this.ensureOpen();
    const scope = validateScope(options?.scope);
    const [memory] = await this.withRetry(() => this.store.get(scope.tenant, [String(id)]));
    return memory ?? null;
  }

  /** Changes a memory; a new text is re-embedded. */
  async update(id: string, patch: MemoryPatch, options: WriteOptions): Promise<Memory> {
    this.ensureOpen();
    const scope = validateScope(options?.scope);
    const { vector: sent, ...valid } = validatePatch(patch, this.limits);
    const policy = await this.guard.policy(scope.tenant, options.safety);
    const [existing] = await this.withRetry(() => this.store.get(scope.tenant, [String(id)]));
    if (!existing) throw new EngramError('NOT_FOUND', `no memory ${id} in tenant ${scope.tenant}`, { details: { id } });
    const clean = this.guard.patch(valid, existing, policy);
    // A caller's vector encodes the text as sent: once the guard masks that text, embed the masked one.
    const given = clean.text !== valid.text ? undefined : sent;
    let vector: { vector: Float32Array; embedding: { model: string; dim: number } } | undefined;
    if (clean.text !== undefined || given !== undefined) {
      await this.embedding.checkModel(scope);
      const [v] =
        given === undefined
          ? ((await this.embedding.embed([clean.text as string], 'document')) as [Float32Array])
          : [await this.embedding.givenVector(given, scope, 'patch.vector', clean.text ?? 'dimension')];
      vector = { vector: v, embedding: { model: this.embedder.model, dim: v.length } };
    }
    const updated = await this.withRetry(() =>
      this.store.update(
        scope.tenant,
        String(id),
        { ...clean, updatedAt: this.clock().toISOString() },
        vector,
        writeContext('update', options),
      ),
    );
    if (!updated) throw new EngramError('NOT_FOUND', `no memory ${id} in tenant ${scope.tenant}`, { details: { id } });
    return updated;
  }

  /** Deletes a memory for good. False when there was nothing to delete. */
  async delete(id: string, options: WriteOptions): Promise<boolean> {
    this.ensureOpen();
    const scope = validateScope(options?.scope);
    const context = { ...writeContext('delete', options), at: this.clock().toISOString() };
    return (await this.withRetry(() => this.store.delete(scope.tenant, [String(id)], context))) > 0;
  }

  /** A page of memories matching the filter. */
  async list(request: ListRequest): Promise<Page<Memory>> {
    this.ensureOpen();
    const filter = scopeFilter(request);
    rejectUnknownFields(request, LIST_REQUEST_FIELD_NAMES, 'list');
    checkOneOf(request.order, LIST_ORDERS, 'order');
    checkOneOf(request.direction, LIST_DIRECTIONS, 'direction');
    const limit = request.limit === undefined ? 50 : validateLimit(request.limit, this.limits.maxLimit);
    return this.withRetry(() =>
      this.store.list(filter, { limit, cursor: request.cursor, order: request.order, direction: request.direction }),
    );
  }

  /** Counts by type, status and embedding model. */
  async stats(request: Scoped & Omit<MemoryFilter, 'scope'>): Promise<ScopeStats> {
    this.ensureOpen();
    const filter = scopeFilter(request);
    rejectUnknownFields(request, FILTER_FIELD_NAMES, 'stats');
    return this.withRetry(() => this.store.stats(filter));
  }

  /**
   * The memories most relevant to `query` in the scope, best first, each with the explanation of
   * its score. Hits below the threshold are returned separately in `cut`.
   */
  async recall(query: string, options: LocalRecallOptions): Promise<RecallResult> {
    return this.recallWith(query, options, this.options.trackUsage !== false);
  }

  /** Recall, recording the hits' use only when `track` (formation's neighbour lookups do not). */
  private async recallWith(query: string, options: LocalRecallOptions, track: boolean): Promise<RecallResult> {
    this.ensureOpen();
    return recallInScope(this.context, query, options, track);
  }

  /**
   * Measures which lexical trust suits this instance's embedder on the scope's own data, with no
   * labels ({@link calibrateFusion}: each memory's `background` as a query for it). Read-only;
   * apply the result with `recall.calibration` (the CLI: `ENGRAM_RECALL_CALIBRATION`).
   */
  async calibrateFusion(options: Scoped & Omit<CalibrateFusionOptions, 'scope'>): Promise<FusionCalibration> {
    this.ensureOpen();
    const scope = validateScope(options?.scope);
    await this.embedding.checkModel(scope);
    return this.withRetry(() => calibrateFusion({ store: this.store, embedder: this.embedder }, { ...options, scope }));
  }

  /** Names of the rerankers {@link Engram.search} accepts. */
  rerankerNames(): string[] {
    return this.searcher().rerankerNames();
  }

  private searcher(): Searcher {
    this.searcherInstance ??= openSearcher(this.context);
    return this.searcherInstance;
  }

  /**
   * The multi-path searcher over the core recall: plan (fast | fine | deep), paths over memory
   * types in parallel, channels, a named reranker, post-processing; hits carry `relevance`, their
   * collection and the explanation of every score, with the plan and per-stage timings. This is
   * the one search path: `POST /v1/search`, MCP's `search_memories` and `engram search` call it.
   * Options are checked first (unknown fields too), with the codes every entry point answers.
   */
  async search(query: string, options: SearchOptions): Promise<SearchResult> {
    this.ensureOpen();
    const filter = scopeFilter({ scope: options?.scope, types: options.types });
    validateSearchOptions(options, filter.scope.tenant, this.limits);
    const text = await this.guard.query(validateText(query, this.limits.maxQueryLength, 'query'), filter.scope.tenant);
    const validity = resolveValidity(options, this.clock);
    await this.embedding.checkModel(filter.scope);
    const vector =
      options.vector === undefined
        ? undefined
        : await this.embedding.givenVector(options.vector, filter.scope, 'vector', text);
    const result = await this.searcher().search(text, { ...options, scope: filter.scope, types: filter.types, vector });
    return validity.includeSuperseded ? { ...result, hits: withValidity(result.hits, validity.at) } : result;
  }

  /**
   * Re-embeds every memory of the scope's (tenant, user) partition with `embedder` (default: this
   * instance's), batch by batch. Returns how many memories were re-embedded.
   */
  async reembed(options: ReembedOptions): Promise<number> {
    this.ensureOpen();
    return reembedPartition(this.context, options);
  }

  /**
   * Loads the store's caches for the scopes it served recently (see `MemoryStore.warm`), runs the
   * embedder, checks those scopes' embedding models and recalls once in each without recording
   * usage (see `warmUp`), so the first recall after a start costs about what a warm one does.
   */
  async warm(): Promise<WarmReport> {
    return warmUp({
      store: this.store,
      embedder: this.embedder,
      checkModel: (scope) => this.embedding.checkModel(scope),
      recall: (scope, vector, count) => warmRecall(this.context, scope, vector, count),
    });
  }

  /**
   * Stores a conversation's turns as episodes and queues the formation of facts from them, in one
   * transaction; resolves once both are durable (extraction and consolidation run later, in the
   * background). A text already in the scope adds a source and a count to its episode; a replayed
   * message (same session and `messageId`) changes nothing. Nothing of an invalid transcript is
   * stored: `INVALID_INPUT` (shape, unknown role or field, bad date), `INVALID_TEXT` (blank),
   * `TEXT_TOO_LONG`, `PAYLOAD_TOO_LARGE` (more than 1,000 turns); `STORE_BUSY` (retryable) when
   * the tenant's formation backlog is full.
   */
  async remember(messages: unknown[], options: RememberOptions): Promise<RememberResult> {
    return this.formationOf().remember(messages, options);
  }

  /** A memory's changes, oldest first; the history outlives a hard delete. Empty for an unknown id. */
  async history(id: string, options: HistoryRequest): Promise<Page<HistoryEvent>> {
    return this.formationOf().history(id, options);
  }

  /** What formation is configured with, the tenant's queue, and its dead letters. */
  async formationStatus(options: Scoped): Promise<FormationStatus> {
    return this.formationOf().status(options);
  }

  /** A page of the tenant's formation jobs. */
  async formationJobs(options: FormationJobsRequest): Promise<Page<FormationJob>> {
    return this.formationOf().jobs(options);
  }

  /** Moves a dead formation job back to the queue (NOT_FOUND when it is not a dead job of the tenant). */
  async requeueFormation(jobId: string, options: Scoped): Promise<FormationJob> {
    return this.formationOf().requeue(jobId, options);
  }

  /**
   * Resolves when formation has nothing waiting in the tenants this instance wrote into (or in
   * `scope`'s tenant): open capture windows are enqueued, then queued, running and retrying jobs
   * are waited for (a dead job does not wait). Rejects with TIMEOUT after `timeoutMs`.
   */
  async idle(options: { scope?: Scope | undefined; timeoutMs?: number | undefined } = {}): Promise<void> {
    this.ensureOpen();
    await this.formation?.idle(options);
  }

  /** Enqueues open capture windows, stops formation's worker, waits for background work, then closes the store and embedder (unless `ownResources` is false). */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.formation?.close();
    await this.usage.settled();
    this.closed = true;
    if (this.options.ownResources !== false) {
      await this.store.close();
      await this.embedder.close?.();
      await this.guard.close();
    }
  }
}

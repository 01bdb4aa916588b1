import type { ListRequest, MemoryApi, RecallOptions, RecallResult, Scoped, WriteOptions } from '../model/api.js';
import { EngramError, isEngramErrorCode } from '../model/errors.js';
import { codeForHttpStatus } from '../model/status-code.js';
import type { GivenVector, Memory, MemoryInput, MemoryPatch } from '../model/memory.js';
import type { Scope } from '../model/scope.js';
import { validateScope } from '../model/validate.js';
import type { RemoteSearchOptions } from '../model/request-fields.js';
import type { SearchResult } from '../model/search-result.js';
import type { MemoryFilter, Page, ScopeStats } from '../model/memory-filter.js';
import type {
  FormationJobsRequest,
  FormationStatus,
  HistoryRequest,
  RememberOptions,
  RememberResult,
} from '../model/formation/formation-api.js';
import type { HistoryEvent } from '../model/formation/history.js';
import type { FormationJob } from '../model/formation/work-queue.js';

/** The fetch function the client uses (the global `fetch` or any compatible one). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Options of {@link RemoteEngram}. */
export interface RemoteEngramOptions {
  /** Base URL of the Engram server, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /**
   * The API key, or a function choosing the key for a call's tenant (for callers that hold keys
   * of several tenants). The server takes the tenant from the key.
   */
  apiKey: string | ((tenant: string) => string | undefined);
  /** @default globalThis.fetch */
  fetch?: FetchLike | undefined;
  /** Per-call time limit in milliseconds. @default 30000 */
  timeoutMs?: number | undefined;
  /** Extra headers on every request (e.g. a tracing header). @default {} */
  headers?: Record<string, string> | undefined;
  /** Ask the server for its stage timings on every recall (`result.server`). @default false */
  explain?: boolean | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Scope fields the server may narrow by (the tenant is sent so the server can check it). */
function scopeBody(scope: Scope): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(scope)) if (typeof value === 'string') out[key] = value;
  return out;
}

/**
 * A vector as JSON numbers (a Float32Array would serialise as an object). A NaN or an infinity
 * travels as `null`, which the server answers with INVALID_VECTOR, as the library does.
 */
function wireVector(vector: GivenVector | undefined): number[] | undefined {
  return vector === undefined
    ? undefined
    : Array.from(vector, (v) => (Number.isFinite(v) ? v : (null as unknown as number)));
}

/** A memory input or patch with its vector (if any) as JSON numbers. */
function wireMemory<T extends { vector?: GivenVector | undefined }>(input: T): T {
  if (input === null || typeof input !== 'object' || input.vector === undefined) return input;
  return { ...input, vector: wireVector(input.vector) };
}

/** A write's `safety` body field, only when the call names one. */
function safetyBody(options: WriteOptions): { safety?: WriteOptions['safety'] } {
  return options?.safety === undefined ? {} : { safety: options.safety };
}

type QueryValue = string | number | string[] | undefined | null;

function queryString(params: Record<string, QueryValue>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) search.append(key, String(v));
    else search.append(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/**
 * The memory API over HTTP: the same interface and the same errors (EngramError with the
 * server's code) as the in-process `Engram`.
 */
export class RemoteEngram implements MemoryApi {
  private readonly baseUrl: string;
  private readonly options: RemoteEngramOptions;
  private readonly fetchFn: FetchLike;
  private closed = false;

  constructor(options: RemoteEngramOptions) {
    if (typeof options?.url !== 'string' || !/^https?:\/\//.test(options.url)) {
      throw new EngramError('CONFIG_ERROR', 'url must be an http(s) URL of an Engram server');
    }
    this.options = options;
    this.baseUrl = options.url.replace(/\/+$/, '');
    this.fetchFn = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  private keyFor(tenant: string): string {
    const key = typeof this.options.apiKey === 'function' ? this.options.apiKey(tenant) : this.options.apiKey;
    if (!key) throw new EngramError('UNAUTHORIZED', `no API key for tenant ${tenant}`, { details: { tenant } });
    return key;
  }

  private async call<T>(method: string, path: string, scope: Scope, body?: unknown, signal?: AbortSignal): Promise<T> {
    if (this.closed) throw new EngramError('STORE_CLOSED', 'this RemoteEngram instance is closed');
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    const headers: Record<string, string> = {
      ...this.options.headers,
      authorization: `Bearer ${this.keyFor(scope.tenant)}`,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetchFn(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: combined,
      });
    } catch (cause) {
      if (timeout.aborted) {
        throw new EngramError('TIMEOUT', `${method} ${path} took longer than ${timeoutMs} ms`, {
          cause,
          isRetryable: true,
        });
      }
      if (signal?.aborted) throw new EngramError('TIMEOUT', `${method} ${path} was aborted`, { cause });
      throw new EngramError('STORE_ERROR', `cannot reach the Engram server at ${this.baseUrl}`, {
        cause,
        isRetryable: true,
      });
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch (cause) {
      if (response.ok)
        throw new EngramError('INTERNAL', `the server sent invalid JSON for ${method} ${path}`, { cause });
    }
    if (!response.ok) throw this.toError(response, parsed);
    return parsed as T;
  }

  private toError(response: Response, body: unknown): EngramError {
    const retryable = response.status === 502 || response.status === 503 || response.status === 504;
    const error = isRecord(body) && isRecord(body.error) ? body.error : null;
    if (error && isEngramErrorCode(error.code)) {
      return new EngramError(error.code, typeof error.message === 'string' ? error.message : error.code, {
        details: isRecord(error.details) ? error.details : {},
        isRetryable: retryable,
      });
    }
    return new EngramError(codeForHttpStatus(response.status), `HTTP ${response.status} from the Engram server`, {
      isRetryable: retryable,
      details: { status: response.status },
    });
  }

  /** Adds one memory. */
  async add(input: MemoryInput, options: WriteOptions): Promise<Memory> {
    const scope = validateScope(options?.scope);
    const result = await this.call<{ memory: Memory }>('POST', '/v1/memories', scope, {
      scope: scopeBody(scope),
      memory: wireMemory(input),
      ...safetyBody(options),
    });
    return result.memory;
  }

  /** Adds all memories, or none. */
  async addMany(inputs: MemoryInput[], options: WriteOptions): Promise<Memory[]> {
    const scope = validateScope(options?.scope);
    const result = await this.call<{ memories: Memory[] }>('POST', '/v1/memories/batch', scope, {
      scope: scopeBody(scope),
      memories: Array.isArray(inputs) ? inputs.map(wireMemory) : inputs,
      ...safetyBody(options),
    });
    return result.memories;
  }

  /** The memory with this id in the key's tenant, or null. */
  async get(id: string, options: Scoped): Promise<Memory | null> {
    const scope = validateScope(options?.scope);
    try {
      const result = await this.call<{ memory: Memory }>(
        'GET',
        `/v1/memories/${encodeURIComponent(String(id))}${queryString(scopeBody(scope))}`,
        scope,
      );
      return result.memory;
    } catch (error) {
      if (error instanceof EngramError && error.code === 'NOT_FOUND') return null;
      throw error;
    }
  }

  /** Changes a memory; NOT_FOUND when the id is not in the tenant. */
  async update(id: string, patch: MemoryPatch, options: WriteOptions): Promise<Memory> {
    const scope = validateScope(options?.scope);
    const result = await this.call<{ memory: Memory }>(
      'PATCH',
      `/v1/memories/${encodeURIComponent(String(id))}`,
      scope,
      {
        scope: scopeBody(scope),
        patch: wireMemory(patch),
        ...safetyBody(options),
      },
    );
    return result.memory;
  }

  /** Deletes a memory; false when nothing was deleted. */
  async delete(id: string, options: Scoped): Promise<boolean> {
    const scope = validateScope(options?.scope);
    const result = await this.call<{ deleted: boolean }>(
      'DELETE',
      `/v1/memories/${encodeURIComponent(String(id))}${queryString(scopeBody(scope))}`,
      scope,
    );
    return result.deleted;
  }

  private filterQuery(request: Omit<MemoryFilter, 'scope'>): Record<string, QueryValue> {
    return { types: request.types, statuses: request.statuses, tags: request.tags, key: request.key, ids: request.ids };
  }

  /** A page of memories matching the filter. */
  async list(request: ListRequest): Promise<Page<Memory>> {
    const scope = validateScope(request?.scope);
    const query = queryString({
      ...scopeBody(scope),
      ...this.filterQuery(request),
      limit: request.limit,
      cursor: request.cursor,
      order: request.order,
      direction: request.direction,
    });
    return this.call<Page<Memory>>('GET', `/v1/memories${query}`, scope);
  }

  /** Counts by type, status and embedding model. */
  async stats(request: Scoped & Omit<MemoryFilter, 'scope'>): Promise<ScopeStats> {
    const scope = validateScope(request?.scope);
    return this.call<ScopeStats>(
      'GET',
      `/v1/stats${queryString({ ...scopeBody(scope), ...this.filterQuery(request) })}`,
      scope,
    );
  }

  /** The same recall as the in-process facade, computed by the server. */
  async recall(query: string, options: RecallOptions): Promise<RecallResult> {
    const scope = validateScope(options?.scope);
    const body = {
      query,
      scope: scopeBody(scope),
      limit: options.limit,
      threshold: options.threshold,
      profile: options.profile,
      types: options.types,
      lexicalWeight: options.lexicalWeight,
      lexicalWeightShort: options.lexicalWeightShort,
      vector: wireVector(options.vector),
      includeFlagged: options.includeFlagged,
      asOf: options.asOf instanceof Date ? options.asOf.toISOString() : options.asOf,
      includeSuperseded: options.includeSuperseded,
      explain: this.options.explain || undefined,
    };
    return this.call<RecallResult>('POST', '/v1/recall', scope, body, options.signal);
  }

  /**
   * The same search as the in-process facade, run by the server's `search` (`POST /v1/search`)
   * in the key's tenant: the same hits, order and scores. Takes the wire options only.
   */
  async search(query: string, options: RemoteSearchOptions): Promise<SearchResult> {
    const scope = validateScope(options?.scope);
    const { signal, scope: _scope, vector, ...rest } = options;
    const body = { ...rest, vector: wireVector(vector), query, scope: scopeBody(scope) };
    return this.call<SearchResult>('POST', '/v1/search', scope, body, signal);
  }

  /** Stores a conversation as episodes on the server; its facts are formed there in the background. */
  async remember(messages: unknown[], options: RememberOptions): Promise<RememberResult> {
    const scope = validateScope(options?.scope);
    const body = { scope: scopeBody(scope), messages, origin: options.origin };
    return this.call<RememberResult>('POST', '/v1/remember', scope, body);
  }

  /** A memory's changes, oldest first. */
  async history(id: string, options: HistoryRequest): Promise<Page<HistoryEvent>> {
    const scope = validateScope(options?.scope);
    const query = queryString({ ...scopeBody(scope), limit: options.limit, cursor: options.cursor });
    return this.call<Page<HistoryEvent>>(
      'GET',
      `/v1/memories/${encodeURIComponent(String(id))}/history${query}`,
      scope,
    );
  }

  /** The server's formation configuration, the tenant's queue and its dead letters. */
  async formationStatus(options: Scoped): Promise<FormationStatus> {
    const scope = validateScope(options?.scope);
    return this.call<FormationStatus>('GET', `/v1/formation/status${queryString(scopeBody(scope))}`, scope);
  }

  /** A page of the tenant's formation jobs. */
  async formationJobs(options: FormationJobsRequest): Promise<Page<FormationJob>> {
    const scope = validateScope(options?.scope);
    const query = queryString({
      ...scopeBody(scope),
      states: options.states,
      limit: options.limit,
      cursor: options.cursor,
    });
    return this.call<Page<FormationJob>>('GET', `/v1/formation/jobs${query}`, scope);
  }

  /** Moves a dead formation job back to the queue. */
  async requeueFormation(jobId: string, options: Scoped): Promise<FormationJob> {
    const scope = validateScope(options?.scope);
    const path = `/v1/formation/jobs/${encodeURIComponent(String(jobId))}/requeue`;
    return (await this.call<{ job: FormationJob }>('POST', path, scope, { scope: scopeBody(scope) })).job;
  }

  /** Marks the client closed; later calls throw STORE_CLOSED. The server is not affected. */
  async close(): Promise<void> {
    this.closed = true;
  }
}

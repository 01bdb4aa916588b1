import type { Page, RequestScope } from './wire-types.js';

/** An error answer of the API (`{ error: { code, message } }`) or a network failure. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
  }
}

type Query = Record<string, string | string[] | undefined>;

function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === '') continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

function errorOf(status: number, body: unknown): ApiError {
  if (typeof body === 'object' && body !== null && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (typeof error === 'object' && error !== null) {
      const { code, message } = error as { code?: unknown; message?: unknown };
      return new ApiError(
        status,
        typeof code === 'string' ? code : 'ERROR',
        typeof message === 'string' ? message : `HTTP ${status}`,
      );
    }
  }
  return new ApiError(status, 'HTTP_ERROR', `HTTP ${status}`);
}

/** Calls the same `/v1` API as any client, with the key from the page. */
export class ApiClient {
  readonly #key: string;
  readonly #onUnauthorized: (() => void) | undefined;

  /** `onUnauthorized` runs when the server stops accepting the key (revoked while the page is open). */
  constructor(key: string, onUnauthorized?: () => void) {
    this.#key = key;
    this.#onUnauthorized = onUnauthorized;
  }

  /** A JSON request; throws {@link ApiError} for non-2xx answers. */
  async request<T>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    options: { query?: Query; body?: unknown } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.#key}`, accept: 'application/json' };
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(`/v1${path}${queryString(options.query ?? {})}`, {
        method,
        headers,
        body,
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (error: unknown) {
      throw new ApiError(0, 'NETWORK', error instanceof Error ? error.message : 'network error');
    }
    let parsed: unknown = null;
    const text = await response.text();
    if (text !== '') {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        throw new ApiError(
          response.status,
          'BAD_RESPONSE',
          `the server answered ${response.status} with a body that is not JSON`,
        );
      }
    }
    if (!response.ok) {
      if (response.status === 401) this.#onUnauthorized?.();
      throw errorOf(response.status, parsed);
    }
    return parsed as T;
  }

  /** One page of memories. */
  list(scope: RequestScope, filter: Query & { limit?: string; cursor?: string }): Promise<Page> {
    return this.request<Page>('GET', '/memories', { query: { ...scope, ...filter } });
  }
}

/** Scope fields that are set, trimmed (empty inputs mean "any"). */
export function cleanScope(scope: Record<keyof RequestScope, string>): RequestScope {
  const out: RequestScope = {};
  for (const name of ['user', 'agent', 'session', 'collection'] as const) {
    const value = scope[name].trim();
    if (value !== '') out[name] = value;
  }
  return out;
}

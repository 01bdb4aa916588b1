import { EngramError, type EngramErrorCode } from '../model/errors.js';
import { retry } from '../util/retry.js';
import type { FetchLike } from './chat-model.js';

/** Timeout, retry and transport settings shared by every HTTP client of the searcher. */
export interface HttpClientOptions {
  /** @default globalThis.fetch */
  fetch?: FetchLike | undefined;
  /** Per attempt. @default 30000 */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt, on 429, 5xx, timeouts and network errors. @default 2 */
  retries?: number | undefined;
  /** First backoff delay; doubles per attempt, with jitter. @default 250 */
  retryBaseMs?: number | undefined;
  /** Longest backoff delay; also caps a server's `Retry-After`. @default 8000 */
  retryMaxMs?: number | undefined;
}

/** One JSON POST. */
export interface PostJsonRequest extends HttpClientOptions {
  url: string;
  headers?: Record<string, string> | undefined;
  body: unknown;
  /** Name used in error messages, e.g. `openai-compatible`. */
  service: string;
  /** Error code for failures other than timeouts and auth. @default 'LLM_ERROR' */
  errorCode?: EngramErrorCode | undefined;
  /** HTTP method. @default 'POST' */
  method?: 'POST' | 'GET' | undefined;
  signal?: AbortSignal | undefined;
}

function snippet(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

async function attempt(request: PostJsonRequest): Promise<unknown> {
  const fetchFn: FetchLike = request.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const timeoutMs = request.timeoutMs ?? 30_000;
  const code = request.errorCode ?? 'LLM_ERROR';
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = (): void => controller.abort();
  request.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const method = request.method ?? 'POST';
    const response = await fetchFn(request.url, {
      method,
      headers: { accept: 'application/json', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), ...request.headers },
      body: method === 'POST' ? JSON.stringify(request.body) : undefined,
      signal: controller.signal,
    });
    const text = await response.text();
    if (!response.ok) {
      const status = response.status;
      const retryAfter = Number(response.headers.get('retry-after'));
      const details: Record<string, unknown> = { service: request.service, status, body: snippet(text) };
      if (Number.isFinite(retryAfter) && retryAfter > 0) details.retryAfterMs = retryAfter * 1000;
      if (status === 401 || status === 403) {
        throw new EngramError('UNAUTHORIZED', `${request.service} refused the credentials (HTTP ${status})`, { details });
      }
      throw new EngramError(code, `${request.service} answered HTTP ${status}`, {
        details,
        isRetryable: status === 429 || status === 408 || status >= 500,
      });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (cause) {
      throw new EngramError(code, `${request.service} answered with invalid JSON`, {
        cause,
        details: { service: request.service, body: snippet(text) },
      });
    }
  } catch (error: unknown) {
    if (error instanceof EngramError) throw error;
    if (timedOut) {
      throw new EngramError('TIMEOUT', `${request.service} did not answer within ${timeoutMs} ms`, {
        cause: error,
        isRetryable: true,
        details: { service: request.service, timeoutMs },
      });
    }
    if (request.signal?.aborted) {
      throw new EngramError('TIMEOUT', `${request.service} call was aborted`, { cause: error, details: { service: request.service } });
    }
    throw new EngramError(code, `${request.service} could not be reached: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
      isRetryable: true,
      details: { service: request.service },
    });
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * POSTs JSON and parses the JSON answer, with a per-attempt timeout and retries with backoff and
 * jitter (the shared retry helper) on 429, 408, 5xx, timeouts and network errors. Errors are
 * `EngramError`s: `UNAUTHORIZED` for 401/403, `TIMEOUT`, else `errorCode`.
 */
export function postJson(request: PostJsonRequest): Promise<unknown> {
  return retry(() => attempt(request), {
    retries: request.retries ?? 2,
    baseMs: request.retryBaseMs ?? 250,
    maxMs: request.retryMaxMs ?? 8_000,
    isRetryable: (error: unknown) => error instanceof EngramError && error.isRetryable && !request.signal?.aborted,
    delayFor: (error: unknown) =>
      error instanceof EngramError && typeof error.details.retryAfterMs === 'number' ? error.details.retryAfterMs : undefined,
    signal: request.signal,
  });
}

/** Narrows an unknown JSON value to a plain object. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

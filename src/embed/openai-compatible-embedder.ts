import { EngramError, isEngramError } from '../model/errors.js';
import { retry } from '../util/retry.js';
import type { EmbedOptions, Embedder } from './embedder.js';
import { checkVectors } from './vector-checks.js';

/** Options of {@link createOpenAICompatibleEmbedder}. */
export interface OpenAICompatibleEmbedderOptions {
  /** API root; the embedder POSTs to `{baseURL}/embeddings`. E.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  baseURL: string;
  /** Model name sent to the server. */
  model: string;
  /** Model id stored with every vector. @default `http:${model}` */
  id?: string | undefined;
  /** Sent as `Authorization: Bearer …` when set. @default none */
  apiKey?: string | undefined;
  /** Extra request headers. @default {} */
  headers?: Record<string, string> | undefined;
  /**
   * Expected vector dimension; every response is checked against it. When unset the dimension
   * of the first response is adopted and later responses must match it (`dim` is 0 until then).
   * @default unset
   */
  dim?: number | undefined;
  /** Sent as the `dimensions` request field (models that can shorten vectors). @default not sent */
  dimensions?: number | undefined;
  /** Most texts per request; larger inputs are split and sent one request after another. @default 64 */
  maxBatchSize?: number | undefined;
  /** Time limit of one HTTP request in ms. @default 30000 */
  timeoutMs?: number | undefined;
  /** Retries of a request after a 429, a 5xx, a network error or a timeout. @default 3 */
  retries?: number | undefined;
  /** First backoff delay in ms (doubles per retry, with jitter). @default 250 */
  retryBaseMs?: number | undefined;
  /** Largest backoff delay in ms, also the cap on a server's Retry-After. @default 10000 */
  retryMaxMs?: number | undefined;
  /** The fetch implementation. @default globalThis.fetch */
  fetch?: typeof fetch | undefined;
}

interface WireItem {
  index?: unknown;
  embedding?: unknown;
}

const MESSAGE_LIMIT = 500;

function retryAfterMs(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function serverMessage(body: string): string {
  let message = body;
  try {
    const parsed: unknown = JSON.parse(body);
    if (typeof parsed === 'object' && parsed !== null) {
      const p = parsed as { error?: unknown; message?: unknown; detail?: unknown };
      const candidate =
        typeof p.error === 'object' && p.error !== null ? (p.error as { message?: unknown }).message : p.error;
      const found = [candidate, p.message, p.detail].find((c) => typeof c === 'string');
      if (typeof found === 'string') message = found;
    }
  } catch {
    // Not JSON: keep the text.
  }
  message = message.trim();
  return message.length > MESSAGE_LIMIT ? `${message.slice(0, MESSAGE_LIMIT)}…` : message;
}

function decodeEmbedding(value: unknown, index: number, url: string): Float32Array {
  if (typeof value === 'string') {
    // encoding_format=base64: little-endian float32.
    const bytes = Buffer.from(value, 'base64');
    if (bytes.length % 4 !== 0) {
      throw new EngramError('EMBEDDER_ERROR', `Malformed base64 embedding at index ${index} from ${url}`);
    }
    const copy = new Uint8Array(bytes.length);
    copy.set(bytes);
    return new Float32Array(copy.buffer);
  }
  if (!Array.isArray(value)) {
    throw new EngramError('EMBEDDER_ERROR', `Malformed embedding at index ${index} from ${url}: not an array`);
  }
  const out = new Float32Array(value.length);
  for (let k = 0; k < value.length; k++) {
    const x: unknown = value[k];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new EngramError('EMBEDDER_ERROR', `Embedding ${index} from ${url} has a non-finite value at ${k}`, {
        details: { index, position: k },
      });
    }
    out[k] = x;
  }
  return out;
}

function parseVectors(payload: unknown, count: number, url: string): Float32Array[] {
  const data = typeof payload === 'object' && payload !== null ? (payload as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) {
    throw new EngramError('EMBEDDER_ERROR', `Malformed response from ${url}: no "data" array`);
  }
  const out = new Array<Float32Array | undefined>(count).fill(undefined);
  (data as WireItem[]).forEach((item, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    if (!Number.isInteger(index) || index < 0 || index >= count || out[index] !== undefined) {
      throw new EngramError('EMBEDDER_ERROR', `Malformed response from ${url}: bad or repeated index ${String(index)}`);
    }
    out[index] = decodeEmbedding(item?.embedding, index, url);
  });
  const missing = out.findIndex((v) => v === undefined);
  if (missing >= 0 || data.length !== count) {
    throw new EngramError(
      'EMBEDDER_ERROR',
      `Malformed response from ${url}: ${data.length} embeddings for ${count} inputs`,
      {
        details: { expected: count, actual: data.length },
      },
    );
  }
  return out as Float32Array[];
}

/** Where and how one embeddings request is sent, fixed when the embedder is built. */
interface EmbeddingEndpoint {
  url: string;
  model: string;
  dimensions: number | undefined;
  headers: Record<string, string>;
  timeoutMs: number;
  fetch: typeof fetch;
}

/**
 * An embedder for any server speaking the OpenAI embeddings API (OpenAI, Ollama's `/v1`,
 * vLLM, TEI, LM Studio): `POST {baseURL}/embeddings` with `{model, input: string[]}`, reading
 * `{data: [{index, embedding}]}`. Requests are batched, time-limited and retried on 429 / 5xx /
 * network errors / timeouts with exponential backoff and jitter, honouring `Retry-After`.
 * Other 4xx fail at once with the server's message. Every vector is checked (count, dimension,
 * finite values).
 */
export function createOpenAICompatibleEmbedder(options: OpenAICompatibleEmbedderOptions): Embedder {
  const endpoint = embeddingEndpoint(options);
  const maxBatchSize = options.maxBatchSize ?? 64;
  if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
    throw new EngramError('CONFIG_ERROR', `maxBatchSize must be a positive integer, got ${String(maxBatchSize)}`);
  }
  let learnedDim: number | undefined = options.dim;

  async function requestOnce(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const text = await postEmbeddings(endpoint, input, signal);
    const vectors = parseVectors(parseJson(text, endpoint.url), input.length, endpoint.url);
    checkVectors(vectors, input.length, learnedDim, `Embedding server ${endpoint.url}`);
    learnedDim ??= vectors[0]?.length;
    return vectors;
  }

  return {
    model: options.id ?? `http:${options.model}`,
    get dim(): number {
      return learnedDim ?? 0;
    },
    async embed(texts: string[], embedOptions?: EmbedOptions): Promise<Float32Array[]> {
      const signal = embedOptions?.signal;
      signal?.throwIfAborted();
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += maxBatchSize) {
        const batch = texts.slice(start, start + maxBatchSize);
        const vectors = await retry(() => requestOnce(batch, signal), {
          retries: options.retries ?? 3,
          baseMs: options.retryBaseMs ?? 250,
          maxMs: options.retryMaxMs ?? 10_000,
          signal,
          isRetryable: (error) => isEngramError(error) && error.isRetryable && !signal?.aborted,
          delayFor: (error) => {
            const given = isEngramError(error) ? error.details['retryAfterMs'] : undefined;
            return typeof given === 'number' ? given : undefined;
          },
        });
        out.push(...vectors);
      }
      return out;
    },
  };
}

function embeddingEndpoint(options: OpenAICompatibleEmbedderOptions): EmbeddingEndpoint {
  if (!options.baseURL || !options.model) {
    throw new EngramError('CONFIG_ERROR', 'An OpenAI-compatible embedder needs a baseURL and a model');
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(options.headers ?? {}) };
  if (options.apiKey) headers['authorization'] = `Bearer ${options.apiKey}`;
  return {
    url: `${options.baseURL.replace(/\/+$/, '')}/embeddings`,
    model: options.model,
    dimensions: options.dimensions,
    headers,
    timeoutMs: options.timeoutMs ?? 30_000,
    fetch: options.fetch ?? globalThis.fetch,
  };
}

/**
 * Sends one embeddings request within the time limit and returns the body of a 2xx answer. The
 * caller's abort is passed on as its own reason; a timeout is a retryable `TIMEOUT`, a network
 * failure a retryable `EMBEDDER_ERROR`, and an error status an `EMBEDDER_ERROR` with the
 * server's message (retryable for 408, 429 and 5xx, with any `Retry-After`).
 */
async function postEmbeddings(
  endpoint: EmbeddingEndpoint,
  input: string[],
  signal: AbortSignal | undefined,
): Promise<string> {
  const { url, timeoutMs, fetch: doFetch } = endpoint;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const body: Record<string, unknown> = { model: endpoint.model, input };
    if (endpoint.dimensions !== undefined) body['dimensions'] = endpoint.dimensions;
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: endpoint.headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      text = await response.text();
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      if (timedOut) {
        throw new EngramError('TIMEOUT', `Embedding request to ${url} timed out after ${timeoutMs} ms`, {
          cause,
          isRetryable: true,
          details: { url, timeoutMs },
        });
      }
      throw new EngramError('EMBEDDER_ERROR', `Embedding request to ${url} failed: ${String(cause)}`, {
        cause,
        isRetryable: true,
        details: { url },
      });
    }
    if (!response.ok) throw statusError(response, text, url);
    return text;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function statusError(response: Response, text: string, url: string): EngramError {
  const status = response.status;
  const retryable = status === 429 || status === 408 || status >= 500;
  return new EngramError(
    'EMBEDDER_ERROR',
    `Embedding server ${url} answered ${status}: ${serverMessage(text) || response.statusText}`,
    {
      isRetryable: retryable,
      details: { url, status, retryAfterMs: retryAfterMs(response.headers) },
    },
  );
}

function parseJson(text: string, url: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new EngramError('EMBEDDER_ERROR', `Malformed response from ${url}: not JSON`, {
      cause,
      details: { url },
    });
  }
}

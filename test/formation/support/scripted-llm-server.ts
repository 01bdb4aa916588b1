import {
  startLocalServer,
  type CannedReply,
  type LocalHttpServer,
  type ReceivedRequest,
} from '../../support/local-http-server.js';

/** A chat request as the scripted server understood it, whichever wire format it came in. */
export interface ScriptedRequest {
  provider: 'openai' | 'anthropic';
  model: string;
  system: string;
  messages: Array<{ role: string; content: string }>;
  /** System text and every message's text, joined by newlines: what rules match against. */
  prompt: string;
  /** OpenAI `response_format: {type: 'json_object'}`. */
  json: boolean;
  headers: ReceivedRequest['headers'];
}

/** How the server answers one request. */
export type ScriptedReply =
  /** A normal answer; an object is sent as its JSON text. `usage: null` leaves the usage field out. */
  | { content: string | object; usage?: { input: number; output: number } | null | undefined }
  | { fault: 'rate-limit'; retryAfterSeconds?: number | undefined }
  | { fault: 'server-error'; status?: number | undefined }
  /** Answers only after `hangMs` (the client's timeout fires first). */
  | { fault: 'hang' }
  /** HTTP 200 whose body is not JSON. */
  | { fault: 'broken-body' };

/** Picks the reply for requests it matches; rules are tried in order. */
export interface ScriptRule {
  name: string;
  /** A substring or pattern of the prompt, or a predicate on the request. */
  match: string | RegExp | ((request: ScriptedRequest) => boolean);
  /** A reply, or a function of the request and how many times this rule matched before (0-based). */
  reply: ScriptedReply | ((request: ScriptedRequest, nth: number) => ScriptedReply);
  /** The rule stops matching after this many uses. @default unlimited */
  times?: number | undefined;
  /** Extra latency of this rule's answers. @default the server's latencyMs */
  latencyMs?: number | undefined;
}

/** One request the server answered. */
export interface ScriptedCall {
  request: ScriptedRequest;
  /** The rule that answered, or null (no rule matched, or the request was invalid). */
  rule: string | null;
  status: number;
}

export interface ScriptedLlmServer {
  url: string;
  /** For `createOpenAICompatibleChat({ baseUrl })` and the `openai` SDK's `baseURL`. */
  openaiBaseUrl: string;
  /** For `createAnthropicChat({ baseUrl })` and the Anthropic SDK's `baseURL`. */
  anthropicBaseUrl: string;
  calls: ScriptedCall[];
  /** Valid requests no rule matched. */
  unmatched(): ScriptedCall[];
  /** Adds a rule ahead of the others. */
  prepend(rule: ScriptRule): void;
  close(): Promise<void>;
}

export interface ScriptedLlmOptions {
  rules?: ScriptRule[] | undefined;
  /** Latency of every answer. @default 0 */
  latencyMs?: number | undefined;
  /** How long a `hang` fault waits. @default 5000 */
  hangMs?: number | undefined;
}

const approxTokens = (text: string): number => Math.ceil(text.length / 4);

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');
}

type Parsed = { ok: true; request: ScriptedRequest } | { ok: false; status: number; message: string };

function parseOpenAI(received: ReceivedRequest): Parsed {
  const body = received.body as Record<string, unknown> | null;
  if (!body || typeof body.model !== 'string' || body.model === '')
    return { ok: false, status: 400, message: 'you must provide a model parameter' };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return { ok: false, status: 400, message: "'messages' must be a non-empty array" };
  if (body.stream === true) return { ok: false, status: 400, message: 'the scripted server does not stream' };
  const messages = (body.messages as Array<Record<string, unknown>>).map((m) => ({
    role: String(m.role),
    content: textOf(m.content),
  }));
  if (messages.some((m) => !['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role))) {
    return { ok: false, status: 400, message: "Invalid value for 'messages[].role'" };
  }
  const format = body.response_format as { type?: unknown } | undefined;
  const json = format?.type === 'json_object';
  if (json && !messages.some((m) => /json/i.test(m.content))) {
    return {
      ok: false,
      status: 400,
      message: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
    };
  }
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => m.content)
    .join('\n');
  const rest = messages.filter((m) => m.role !== 'system' && m.role !== 'developer');
  const prompt = [system, ...rest.map((m) => m.content)].filter(Boolean).join('\n');
  return {
    ok: true,
    request: { provider: 'openai', model: body.model, system, messages: rest, prompt, json, headers: received.headers },
  };
}

function parseAnthropic(received: ReceivedRequest): Parsed {
  // Keys come as `x-api-key` (the HTTP API, Engram's client) or a bearer token (current official SDKs).
  if (!received.headers['x-api-key'] && !received.headers.authorization)
    return { ok: false, status: 401, message: 'x-api-key header is required' };
  if (!received.headers['anthropic-version'])
    return { ok: false, status: 400, message: 'anthropic-version header is required' };
  const body = received.body as Record<string, unknown> | null;
  if (!body || typeof body.model !== 'string' || body.model === '')
    return { ok: false, status: 400, message: 'model: Field required' };
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) {
    return { ok: false, status: 400, message: 'max_tokens: Field required' };
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return { ok: false, status: 400, message: 'messages: at least one message is required' };
  const messages = (body.messages as Array<Record<string, unknown>>).map((m) => ({
    role: String(m.role),
    content: textOf(m.content),
  }));
  if (messages.some((m) => m.role !== 'user' && m.role !== 'assistant'))
    return { ok: false, status: 400, message: 'messages: roles must be user or assistant' };
  if (messages[0]?.role !== 'user')
    return { ok: false, status: 400, message: 'messages: first message must use the "user" role' };
  if (body.stream === true) return { ok: false, status: 400, message: 'the scripted server does not stream' };
  const system = textOf(body.system);
  const prompt = [system, ...messages.map((m) => m.content)].filter(Boolean).join('\n');
  return {
    ok: true,
    request: {
      provider: 'anthropic',
      model: body.model,
      system,
      messages,
      prompt,
      json: false,
      headers: received.headers,
    },
  };
}

function errorBody(provider: 'openai' | 'anthropic', status: number, message: string): unknown {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 401
        ? 'authentication_error'
        : status === 529
          ? 'overloaded_error'
          : status >= 500
            ? 'api_error'
            : 'invalid_request_error';
  if (provider === 'anthropic') return { type: 'error', error: { type, message } };
  const openaiType = status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error';
  return { error: { message, type: openaiType, param: null, code: status === 429 ? 'rate_limit_exceeded' : null } };
}

function successBody(
  request: ScriptedRequest,
  content: string,
  usage: { input: number; output: number } | null,
  n: number,
): unknown {
  if (request.provider === 'anthropic') {
    return {
      id: `msg_scripted_${n}`,
      type: 'message',
      role: 'assistant',
      model: request.model,
      content: [{ type: 'text', text: content }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      ...(usage ? { usage: { input_tokens: usage.input, output_tokens: usage.output } } : {}),
    };
  }
  return {
    id: `chatcmpl-scripted-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: request.model,
    system_fingerprint: null,
    choices: [
      { index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' },
    ],
    ...(usage
      ? {
          usage: {
            prompt_tokens: usage.input,
            completion_tokens: usage.output,
            total_tokens: usage.input + usage.output,
          },
        }
      : {}),
  };
}

function matches(rule: ScriptRule, request: ScriptedRequest): boolean {
  if (typeof rule.match === 'string') return request.prompt.includes(rule.match);
  if (rule.match instanceof RegExp) return rule.match.test(request.prompt);
  return rule.match(request);
}

/**
 * A scripted LLM on 127.0.0.1 speaking the real OpenAI-compatible `POST /v1/chat/completions` and
 * Anthropic `POST /v1/messages` wire formats, validating requests as those APIs do (required
 * fields, roles, Anthropic headers, OpenAI's "json" word rule for JSON mode). Each request is
 * answered by the first rule matching its prompt; faults (429 with Retry-After, 5xx, hangs,
 * non-JSON bodies) and latency are per rule. Usage is reported as ~4 characters per token.
 */
export async function startScriptedLlm(options: ScriptedLlmOptions = {}): Promise<ScriptedLlmServer> {
  const rules: ScriptRule[] = [...(options.rules ?? [])];
  const uses = new Map<ScriptRule, number>();
  const calls: ScriptedCall[] = [];
  const hangMs = options.hangMs ?? 5_000;
  const answer = (received: ReceivedRequest): CannedReply => {
    const provider = received.url.startsWith('/v1/messages')
      ? 'anthropic'
      : received.url.startsWith('/v1/chat/completions')
        ? 'openai'
        : null;
    if (received.method !== 'POST' || provider === null)
      return { status: 404, json: { error: { message: `no route ${received.method} ${received.url}` } } };
    const parsed = provider === 'anthropic' ? parseAnthropic(received) : parseOpenAI(received);
    if (!parsed.ok) return { status: parsed.status, json: errorBody(provider, parsed.status, parsed.message) };
    const request = parsed.request;
    const rule = rules.find((r) => (r.times === undefined || (uses.get(r) ?? 0) < r.times) && matches(r, request));
    if (!rule) {
      calls.push({ request, rule: null, status: 500 });
      return { status: 500, json: errorBody(provider, 500, 'no scripted reply matches this prompt') };
    }
    const nth = uses.get(rule) ?? 0;
    uses.set(rule, nth + 1);
    const reply = typeof rule.reply === 'function' ? rule.reply(request, nth) : rule.reply;
    const delayMs = rule.latencyMs ?? options.latencyMs ?? 0;
    const done = (status: number, extra: Omit<CannedReply, 'status'>): CannedReply => {
      calls.push({ request, rule: rule.name, status });
      return { status, delayMs, ...extra };
    };
    if ('content' in reply) {
      const content = typeof reply.content === 'string' ? reply.content : JSON.stringify(reply.content);
      const usage =
        reply.usage === null
          ? null
          : (reply.usage ?? { input: approxTokens(request.prompt), output: approxTokens(content) });
      return done(200, { json: successBody(request, content, usage, calls.length + 1) });
    }
    if (reply.fault === 'rate-limit') {
      return done(429, {
        json: errorBody(provider, 429, 'rate limited (scripted)'),
        headers: { 'retry-after': String(reply.retryAfterSeconds ?? 1) },
      });
    }
    if (reply.fault === 'server-error') {
      const status = reply.status ?? 500;
      return done(status, { json: errorBody(provider, status, 'server error (scripted)') });
    }
    if (reply.fault === 'hang') return { ...done(200, { json: successBody(request, '{}', null, 0) }), delayMs: hangMs };
    return done(200, { text: '{"id": "chatcmpl-broken", "choices": [' });
  };
  const server: LocalHttpServer = await startLocalServer((received) => answer(received));
  return {
    url: server.url,
    openaiBaseUrl: `${server.url}/v1`,
    anthropicBaseUrl: server.url,
    calls,
    unmatched: () => calls.filter((c) => c.rule === null),
    prepend: (rule) => rules.unshift(rule),
    close: () => server.close(),
  };
}

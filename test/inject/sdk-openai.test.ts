import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapOpenAI } from '../../src/inject/wrappers/openai.js';
import type { InjectEvent } from '../../src/inject/inject-event.js';
import { FixedRecaller, HITS, RecordingWriter, SCOPE } from './helpers/fixtures.js';
import { RecordingServer, SSE_HEADERS, sse, type RecordedRequest, type Reply } from './helpers/recording-server.js';
import { countBlocks, stripBlock } from './helpers/strip-block.js';
import { waitFor } from './helpers/wait-for.js';

const REPLY = ['Avoid ', 'peanut ', 'sauce.'];

function chatReply(req: RecordedRequest): Reply {
  const body = req.json as { stream?: boolean; model: string };
  if (body.stream === true) {
    const base = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: body.model };
    return {
      headers: SSE_HEADERS,
      chunks: [
        sse({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
        ...REPLY.map((t) => sse({ ...base, choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })),
        sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
        sse('[DONE]'),
      ],
    };
  }
  return {
    body: JSON.stringify({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: body.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: REPLY.join(''), refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    }),
  };
}

function responsesReply(req: RecordedRequest): Reply {
  const body = req.json as { stream?: boolean; model: string };
  const response = (status: string, text: string) => ({
    id: 'resp_1',
    object: 'response',
    created_at: 1,
    status,
    model: body.model,
    output:
      text === ''
        ? []
        : [
            {
              type: 'message',
              id: 'msg_1',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text, annotations: [] }],
            },
          ],
    usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8 },
  });
  if (body.stream === true) {
    let seq = 0;
    return {
      headers: SSE_HEADERS,
      chunks: [
        sse(
          { type: 'response.created', sequence_number: seq++, response: response('in_progress', '') },
          'response.created',
        ),
        sse(
          {
            type: 'response.output_item.added',
            sequence_number: seq++,
            output_index: 0,
            item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] },
          },
          'response.output_item.added',
        ),
        sse(
          {
            type: 'response.content_part.added',
            sequence_number: seq++,
            item_id: 'msg_1',
            output_index: 0,
            content_index: 0,
            part: { type: 'output_text', text: '', annotations: [] },
          },
          'response.content_part.added',
        ),
        ...REPLY.map((delta) =>
          sse(
            {
              type: 'response.output_text.delta',
              sequence_number: seq++,
              item_id: 'msg_1',
              output_index: 0,
              content_index: 0,
              delta,
              logprobs: [],
            },
            'response.output_text.delta',
          ),
        ),
        sse(
          {
            type: 'response.output_text.done',
            sequence_number: seq++,
            item_id: 'msg_1',
            output_index: 0,
            content_index: 0,
            text: REPLY.join(''),
            logprobs: [],
          },
          'response.output_text.done',
        ),
        sse(
          { type: 'response.completed', sequence_number: seq++, response: response('completed', REPLY.join('')) },
          'response.completed',
        ),
      ],
    };
  }
  return { body: JSON.stringify(response('completed', REPLY.join(''))) };
}

const server = new RecordingServer((req) => (req.url.startsWith('/responses') ? responsesReply(req) : chatReply(req)));
let client: OpenAI;

beforeAll(async () => {
  await server.start();
  client = new OpenAI({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => server.close());

type Api = 'chat' | 'responses';

interface Case {
  name: string;
  api: Api;
  request: Record<string, unknown>;
  query?: string;
  /** Where the block must be in the received body. */
  where: (body: Record<string, unknown>) => unknown;
}

const CASES: Case[] = [
  {
    name: 'chat, no system message',
    api: 'chat',
    request: {
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'What should I cook?' }],
      temperature: 0.3,
      user: 'u1',
    },
    where: (b) => (b['messages'] as Array<{ role: string; content: string }>)[0],
  },
  {
    name: 'chat, system string',
    api: 'chat',
    request: {
      model: 'gpt-x',
      messages: [
        { role: 'system', content: 'You are a chef.' },
        { role: 'user', content: 'What should I cook?' },
      ],
      max_completion_tokens: 50,
    },
    where: (b) => (b['messages'] as Array<{ content: string }>)[0]?.content,
  },
  {
    name: 'chat, developer parts and image',
    api: 'chat',
    request: {
      model: 'gpt-x',
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'Dev rules' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this dish?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
      ],
    },
    query: 'What is this dish?',
    where: (b) => (b['messages'] as Array<{ content: unknown[] }>)[0]?.content[1],
  },
  {
    name: 'responses, string input',
    api: 'responses',
    request: { model: 'gpt-x', input: 'What should I cook?', metadata: { k: 'v' } },
    where: (b) => b['instructions'],
  },
  {
    name: 'responses, items and instructions',
    api: 'responses',
    request: {
      model: 'gpt-x',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'What should I cook?' }] }],
    },
    where: (b) => b['instructions'],
  },
];

async function call(c: OpenAI, api: Api, request: Record<string, unknown>, stream: boolean): Promise<string> {
  const body = stream ? { ...request, stream: true } : request;
  if (api === 'chat') {
    const params = body as unknown as OpenAI.Chat.ChatCompletionCreateParams;
    if (stream) {
      let text = '';
      for await (const chunk of (await c.chat.completions.create(
        params,
      )) as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>)
        text += chunk.choices[0]?.delta.content ?? '';
      return text;
    }
    return ((await c.chat.completions.create(params)) as OpenAI.Chat.ChatCompletion).choices[0]?.message.content ?? '';
  }
  const params = body as unknown as OpenAI.Responses.ResponseCreateParams;
  if (stream) {
    let text = '';
    for await (const event of (await c.responses.create(
      params,
    )) as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    return text;
  }
  return ((await c.responses.create(params)) as OpenAI.Responses.Response).output_text;
}

describe.each(CASES)('openai SDK against a local server: $name', ({ api, request, where, query }) => {
  it.each([false, true])(
    'stream=%s: block in place, every other byte as sent unwrapped, reply unchanged and captured',
    async (stream) => {
      const frozen = structuredClone(request);
      const plainText = await call(client, api, request, stream);
      const plainBody = server.lastJson();

      const writer = new RecordingWriter();
      const events: InjectEvent[] = [];
      const wrapped = wrapOpenAI(client, {
        recaller: new FixedRecaller(HITS),
        scope: SCOPE,
        capture: { writer },
        onEvent: (e) => events.push(e),
      });
      const wrappedText = await call(wrapped, api, request, stream);
      const wrappedBody = server.lastJson() as Record<string, unknown>;

      expect(wrappedText).toBe(plainText);
      expect(wrappedText).toBe(REPLY.join(''));
      expect(countBlocks(wrappedBody)).toBe(1);
      expect(JSON.stringify(where(wrappedBody))).toContain('- User is allergic to peanuts. Stated at 2026-05-01 09:30');
      expect(stripBlock(wrappedBody)).toEqual(plainBody);
      expect(request).toEqual(frozen);
      expect(events[0]).toMatchObject({
        type: 'injected',
        provider: api === 'chat' ? 'openai-chat' : 'openai-responses',
      });

      await waitFor(() => writer.batches.length === 1);
      expect(writer.batches[0]?.inputs.map((i) => i.text)).toEqual([query ?? 'What should I cook?', REPLY.join('')]);
    },
  );
});

describe('openai wrapper behaviour', () => {
  const request = { model: 'gpt-x', messages: [{ role: 'user' as const, content: 'What should I cook?' }] };

  it('nothing relevant: the request bytes are identical to the unwrapped call', async () => {
    await client.chat.completions.create(request);
    const plain = server.requests.at(-1)!.body;
    const wrapped = wrapOpenAI(client, { recaller: new FixedRecaller([]), scope: SCOPE });
    await wrapped.chat.completions.create(request);
    expect(server.requests.at(-1)!.body.equals(plain)).toBe(true);
  });

  it('recall past its budget: the call goes out unchanged and on time', async () => {
    await client.chat.completions.create(request);
    const plain = server.requests.at(-1)!.body;
    const events: InjectEvent[] = [];
    const wrapped = wrapOpenAI(client, {
      recaller: new FixedRecaller(HITS, { delayMs: 3000 }),
      scope: SCOPE,
      budgetMs: 40,
      onEvent: (e) => events.push(e),
    });
    const started = performance.now();
    const res = await wrapped.chat.completions.create(request);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(res.choices[0]?.message.content).toBe(REPLY.join(''));
    expect(server.requests.at(-1)!.body.equals(plain)).toBe(true);
    expect(events[0]).toMatchObject({ type: 'skipped', reason: 'timeout' });
  });

  it('recall disabled: the original APIPromise is returned as is', async () => {
    const wrapped = wrapOpenAI(client, { recall: false, scope: SCOPE });
    const direct = client.chat.completions.create(request);
    const viaWrapper = wrapped.chat.completions.create(request);
    expect(Object.getPrototypeOf(viaWrapper)).toBe(Object.getPrototypeOf(direct));
    await Promise.all([direct, viaWrapper]);
  });

  it('the client itself is not changed', async () => {
    const create = client.chat.completions.create;
    wrapOpenAI(client, { recaller: new FixedRecaller(HITS), scope: SCOPE });
    expect(client.chat.completions.create).toBe(create);
    await client.chat.completions.create(request);
    expect(countBlocks(server.lastJson())).toBe(0);
  });

  it('withResponse() and asResponse() still work', async () => {
    const wrapped = wrapOpenAI(client, { recaller: new FixedRecaller(HITS), scope: SCOPE });
    const { data, response } = await wrapped.chat.completions.create(request).withResponse();
    expect(response.status).toBe(200);
    expect(data.choices[0]?.message.content).toBe(REPLY.join(''));
    const raw = await wrapped.chat.completions.create(request).asResponse();
    expect(((await raw.json()) as { id: string }).id).toBe('chatcmpl-1');
    expect(countBlocks(server.lastJson())).toBe(1);
  });

  it('SDK helpers go through the wrapper: chat.completions.stream(), parse(), responses.stream()', async () => {
    const writer = new RecordingWriter();
    const wrapped = wrapOpenAI(client, { recaller: new FixedRecaller(HITS), scope: SCOPE, capture: { writer } });

    const runner = wrapped.chat.completions.stream(request);
    let text = '';
    for await (const chunk of runner) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(REPLY.join(''));
    expect(countBlocks(server.lastJson())).toBe(1);

    const parsed = await wrapped.chat.completions.parse(request);
    expect(parsed.choices[0]?.message.content).toBe(REPLY.join(''));
    expect(countBlocks(server.lastJson())).toBe(1);

    const rstream = wrapped.responses.stream({ model: 'gpt-x', input: 'What should I cook?' });
    const final = await rstream.finalResponse();
    expect(final.output_text).toBe(REPLY.join(''));
    expect((server.lastJson() as { instructions: string }).instructions).toContain('<engram_context>');

    await waitFor(() => writer.batches.length === 3);
    expect(writer.batches.map((b) => b.inputs[1]?.text)).toEqual([REPLY.join(''), REPLY.join(''), REPLY.join('')]);
  });

  it('a streamed tee() feeds capture once and both branches get every chunk', async () => {
    const writer = new RecordingWriter();
    const wrapped = wrapOpenAI(client, { recaller: new FixedRecaller(HITS), scope: SCOPE, capture: { writer } });
    const stream = await wrapped.chat.completions.create({ ...request, stream: true });
    const [a, b] = stream.tee();
    const read = async (s: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) => {
      let t = '';
      for await (const c of s) t += c.choices[0]?.delta.content ?? '';
      return t;
    };
    expect(await Promise.all([read(a), read(b)])).toEqual([REPLY.join(''), REPLY.join('')]);
    await waitFor(() => writer.batches.length === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(writer.batches).toHaveLength(1);
  });

  it('scope per call from the request (user field)', async () => {
    const recaller = new FixedRecaller(HITS);
    const wrapped = wrapOpenAI(client, {
      recaller,
      scope: (r) => ({ tenant: 't', user: (r as { user?: string }).user ?? 'anon' }),
    });
    await wrapped.chat.completions.create({ ...request, user: 'alice' });
    await wrapped.chat.completions.create({ ...request, user: 'bob' });
    expect(recaller.calls.map((c) => c.options.scope.user)).toEqual(['alice', 'bob']);
  });
});

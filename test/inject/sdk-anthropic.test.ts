import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapAnthropic } from '../../src/inject/wrappers/anthropic.js';
import type { InjectEvent } from '../../src/inject/inject-event.js';
import { FixedRecaller, HITS, RecordingWriter, SCOPE } from './helpers/fixtures.js';
import { RecordingServer, SSE_HEADERS, sse, type RecordedRequest, type Reply } from './helpers/recording-server.js';
import { countBlocks, stripBlock } from './helpers/strip-block.js';
import { waitFor } from './helpers/wait-for.js';

const REPLY = ['No ', 'satay ', 'then.'];

function messagesReply(req: RecordedRequest): Reply {
  const body = req.json as { stream?: boolean; model: string };
  const message = (content: unknown[]) => ({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: content.length === 0 ? null : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 3 },
  });
  if (body.stream === true) {
    return {
      headers: SSE_HEADERS,
      chunks: [
        sse({ type: 'message_start', message: message([]) }, 'message_start'),
        sse(
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          'content_block_start',
        ),
        sse({ type: 'ping' }, 'ping'),
        ...REPLY.map((text) =>
          sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta'),
        ),
        sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
        sse(
          {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { output_tokens: 3 },
          },
          'message_delta',
        ),
        sse({ type: 'message_stop' }, 'message_stop'),
      ],
    };
  }
  return { body: JSON.stringify(message([{ type: 'text', text: REPLY.join('') }])) };
}

const server = new RecordingServer(messagesReply);
let client: Anthropic;

beforeAll(async () => {
  await server.start();
  client = new Anthropic({ apiKey: 'test-key', baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => server.close());

const USER = { role: 'user' as const, content: 'Can I have satay?' };

const CASES: Array<{
  name: string;
  request: Anthropic.MessageCreateParamsNonStreaming;
  check: (body: Record<string, unknown>) => void;
}> = [
  {
    name: 'no system',
    request: { model: 'claude-x', max_tokens: 100, messages: [USER] },
    check: (b) => expect(b['system']).toMatch(/^<engram_context>\n/),
  },
  {
    name: 'system string',
    request: {
      model: 'claude-x',
      max_tokens: 100,
      system: 'You are careful.',
      messages: [USER],
      stop_sequences: ['END'],
    },
    check: (b) => expect(b['system']).toMatch(/^You are careful\.\n\n<engram_context>\n/),
  },
  {
    name: 'system blocks with a cache_control breakpoint',
    request: {
      model: 'claude-x',
      max_tokens: 100,
      system: [
        { type: 'text', text: 'Long stable prompt', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Tail' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'text', text: 'Can I have satay?' },
          ],
        },
      ],
      metadata: { user_id: 'u1' },
    },
    check: (b) => {
      const system = b['system'] as Array<Record<string, unknown>>;
      expect(system).toHaveLength(3);
      expect(system[0]).toEqual({ type: 'text', text: 'Long stable prompt', cache_control: { type: 'ephemeral' } });
      expect(system[1]).toEqual({ type: 'text', text: 'Tail' });
      expect(system[2]?.['text']).toMatch(/^<engram_context>/);
      expect(system[2]?.['cache_control']).toBeUndefined();
    },
  },
];

async function run(c: Anthropic, request: Anthropic.MessageCreateParamsNonStreaming, stream: boolean): Promise<string> {
  if (!stream) {
    const res = await c.messages.create(request);
    return res.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  }
  let text = '';
  const events = await c.messages.create({ ...request, stream: true });
  for await (const e of events)
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
  return text;
}

describe.each(CASES)('anthropic SDK against a local server: $name', ({ request, check }) => {
  it.each([false, true])('stream=%s', async (stream) => {
    const frozen = structuredClone(request);
    const plain = await run(client, request, stream);
    const plainBody = server.lastJson();
    const writer = new RecordingWriter();
    const events: InjectEvent[] = [];
    const wrapped = wrapAnthropic(client, {
      recaller: new FixedRecaller(HITS),
      scope: SCOPE,
      capture: { writer },
      onEvent: (e) => events.push(e),
    });
    const text = await run(wrapped, request, stream);
    const body = server.lastJson() as Record<string, unknown>;
    expect(text).toBe(plain);
    expect(text).toBe(REPLY.join(''));
    expect(countBlocks(body)).toBe(1);
    check(body);
    expect(stripBlock(body)).toEqual(plainBody);
    expect(request).toEqual(frozen);
    expect(events[0]).toMatchObject({ type: 'injected', provider: 'anthropic-messages' });
    await waitFor(() => writer.batches.length === 1);
    expect(writer.batches[0]?.inputs.map((i) => i.text)).toEqual(['Can I have satay?', REPLY.join('')]);
  });
});

describe('anthropic wrapper behaviour', () => {
  const request: Anthropic.MessageCreateParamsNonStreaming = { model: 'claude-x', max_tokens: 10, messages: [USER] };

  it('messages.stream() goes through the wrapper and is captured', async () => {
    const writer = new RecordingWriter();
    const wrapped = wrapAnthropic(client, { recaller: new FixedRecaller(HITS), scope: SCOPE, capture: { writer } });
    const stream = wrapped.messages.stream(request);
    const final = await stream.finalMessage();
    expect(final.content[0]?.type === 'text' && final.content[0].text).toBe(REPLY.join(''));
    expect(countBlocks(server.lastJson())).toBe(1);
    await waitFor(() => writer.batches.length === 1);
    expect(writer.batches[0]?.inputs[1]?.text).toBe(REPLY.join(''));
  });

  it('beta.messages.create is wrapped too', async () => {
    const wrapped = wrapAnthropic(client, { recaller: new FixedRecaller(HITS), scope: SCOPE });
    await wrapped.beta.messages.create(request);
    expect(countBlocks(server.lastJson())).toBe(1);
  });

  it('nothing relevant: byte-identical request', async () => {
    await client.messages.create(request);
    const plain = server.requests.at(-1)!.body;
    await wrapAnthropic(client, { recaller: new FixedRecaller([]), scope: SCOPE }).messages.create(request);
    expect(server.requests.at(-1)!.body.equals(plain)).toBe(true);
  });

  it('a recall error: the call still succeeds, unchanged', async () => {
    await client.messages.create(request);
    const plain = server.requests.at(-1)!.body;
    const events: InjectEvent[] = [];
    const wrapped = wrapAnthropic(client, {
      recaller: new FixedRecaller(HITS, { fail: new Error('down') }),
      scope: SCOPE,
      onEvent: (e) => events.push(e),
    });
    const res = await wrapped.messages.create(request);
    expect(res.id).toBe('msg_1');
    expect(server.requests.at(-1)!.body.equals(plain)).toBe(true);
    expect(events[0]).toMatchObject({ reason: 'recall-error' });
  });

  it('a failing capture never reaches the caller', async () => {
    const events: InjectEvent[] = [];
    const wrapped = wrapAnthropic(client, {
      recaller: new FixedRecaller(HITS),
      scope: SCOPE,
      capture: { writer: new RecordingWriter(new Error('nope')) },
      onEvent: (e) => events.push(e),
    });
    const res = await wrapped.messages.create(request);
    expect(res.id).toBe('msg_1');
    await waitFor(() => events.some((e) => e.type === 'capture-failed'));
  });
});

import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ListAsyncInvokesCommand,
  type ConverseCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapBedrock } from '../../src/inject/wrappers/bedrock.js';
import type { InjectEvent } from '../../src/inject/inject-event.js';
import { FixedRecaller, HITS, RecordingWriter, SCOPE } from './helpers/fixtures.js';
import { RecordingServer, type RecordedRequest, type Reply } from './helpers/recording-server.js';
import { countBlocks, stripBlock } from './helpers/strip-block.js';
import { waitFor } from './helpers/wait-for.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const codec = new EventStreamCodec(
  (b) => dec.decode(b),
  (s) => enc.encode(s),
);
const REPLY = ['Skip ', 'the ', 'peanuts.'];
const EVENT_STREAM = { 'content-type': 'application/vnd.amazon.eventstream' };

/** One binary event-stream frame, as Bedrock sends it. */
function frame(eventType: string, body: unknown): Uint8Array {
  return codec.encode({
    headers: {
      ':event-type': { type: 'string', value: eventType },
      ':content-type': { type: 'string', value: 'application/json' },
      ':message-type': { type: 'string', value: 'event' },
    },
    body: enc.encode(JSON.stringify(body)),
  });
}

const anthropicEvents = [
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude',
      content: [],
      stop_reason: null,
      usage: { input_tokens: 5, output_tokens: 0 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ...REPLY.map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } },
  { type: 'message_stop' },
];

function reply(req: RecordedRequest): Reply {
  if (req.url.endsWith('/converse')) {
    return {
      body: JSON.stringify({
        output: { message: { role: 'assistant', content: [{ text: REPLY.join('') }] } },
        stopReason: 'end_turn',
        usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 },
        metrics: { latencyMs: 12 },
      }),
    };
  }
  if (req.url.endsWith('/converse-stream')) {
    return {
      headers: EVENT_STREAM,
      chunks: [
        frame('messageStart', { role: 'assistant' }),
        ...REPLY.map((text) => frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text } })),
        frame('contentBlockStop', { contentBlockIndex: 0 }),
        frame('messageStop', { stopReason: 'end_turn' }),
        frame('metadata', { usage: { inputTokens: 5, outputTokens: 3, totalTokens: 8 }, metrics: { latencyMs: 12 } }),
      ],
    };
  }
  if (req.url.endsWith('/invoke')) {
    return {
      body: JSON.stringify({
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        content: [{ type: 'text', text: REPLY.join('') }],
        stop_reason: 'end_turn',
      }),
    };
  }
  if (req.url.endsWith('/invoke-with-response-stream')) {
    return {
      headers: EVENT_STREAM,
      chunks: anthropicEvents.map((e) => frame('chunk', { bytes: Buffer.from(JSON.stringify(e)).toString('base64') })),
    };
  }
  return { status: 404, body: '{}' };
}

const server = new RecordingServer(reply, { http2: true });
let client: BedrockRuntimeClient;

beforeAll(async () => {
  await server.start();
  client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: server.url,
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
    maxAttempts: 1,
  });
});
afterAll(async () => {
  client.destroy();
  await server.close();
});

const Q = 'Is pad thai fine?';

const CONVERSE: Array<{ name: string; input: ConverseCommandInput; systemLength: number }> = [
  {
    name: 'no system',
    input: { modelId: 'anthropic.claude-x', messages: [{ role: 'user', content: [{ text: Q }] }] },
    systemLength: 1,
  },
  {
    name: 'system with cachePoint and guardContent',
    input: {
      modelId: 'anthropic.claude-x',
      system: [
        { text: 'Stable prompt' },
        { cachePoint: { type: 'default' } },
        { guardContent: { text: { text: 'guarded' } } },
      ],
      messages: [
        { role: 'user', content: [{ text: 'earlier' }] },
        { role: 'assistant', content: [{ text: 'ok' }] },
        {
          role: 'user',
          content: [{ image: { format: 'png', source: { bytes: new Uint8Array([1, 2, 3]) } } }, { text: Q }],
        },
      ],
      inferenceConfig: { maxTokens: 50, temperature: 0.2 },
    },
    systemLength: 4,
  },
];

async function converse(c: BedrockRuntimeClient, input: ConverseCommandInput, stream: boolean): Promise<string> {
  if (!stream) {
    const out = await c.send(new ConverseCommand(input));
    return (out.output?.message?.content ?? []).map((b) => b.text ?? '').join('');
  }
  const out = await c.send(new ConverseStreamCommand(input));
  let text = '';
  for await (const event of out.stream ?? []) text += event.contentBlockDelta?.delta?.text ?? '';
  return text;
}

describe.each(CONVERSE)('bedrock Converse against a local server: $name', ({ input, systemLength }) => {
  it.each([false, true])('stream=%s (ConverseStream over a binary event stream)', async (stream) => {
    const plain = await converse(client, input, stream);
    const plainBody = server.lastJson();
    const writer = new RecordingWriter();
    const events: InjectEvent[] = [];
    const wrapped = wrapBedrock(client, {
      recaller: new FixedRecaller(HITS),
      scope: SCOPE,
      capture: { writer },
      onEvent: (e) => events.push(e),
    });
    const text = await converse(wrapped, input, stream);
    const body = server.lastJson() as { system: Array<Record<string, unknown>> };
    expect(text).toBe(plain);
    expect(text).toBe(REPLY.join(''));
    expect(countBlocks(body)).toBe(1);
    expect(body.system).toHaveLength(systemLength);
    expect(body.system.at(-1)?.['text']).toMatch(/^<engram_context>/);
    expect(stripBlock(body)).toEqual(plainBody);
    expect(events[0]).toMatchObject({ type: 'injected', provider: 'bedrock-converse' });
    await waitFor(() => writer.batches.length === 1);
    expect(writer.batches[0]?.inputs.map((i) => i.text)).toEqual([Q, REPLY.join('')]);
  });
});

describe('bedrock InvokeModel with an Anthropic body', () => {
  const body = {
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 50,
    system: [{ type: 'text', text: 'Sys', cache_control: { type: 'ephemeral' } }],
    messages: [{ role: 'user', content: [{ type: 'text', text: Q }] }],
  };

  it.each([
    ['string body, InvokeModel', false, JSON.stringify(body)],
    ['bytes body, InvokeModelWithResponseStream', true, enc.encode(JSON.stringify(body))],
  ] as const)('%s', async (_name, stream, raw) => {
    const input = {
      modelId: 'anthropic.claude-x',
      contentType: 'application/json',
      accept: 'application/json',
      body: raw,
    };
    const writer = new RecordingWriter();
    const wrapped = wrapBedrock(client, { recaller: new FixedRecaller(HITS), scope: SCOPE, capture: { writer } });
    let text = '';
    if (stream) {
      const out = await wrapped.send(new InvokeModelWithResponseStreamCommand(input));
      for await (const part of out.body ?? []) {
        const event = JSON.parse(dec.decode(part.chunk?.bytes)) as { type: string; delta?: { text?: string } };
        if (event.type === 'content_block_delta') text += event.delta?.text ?? '';
      }
    } else {
      const out = await wrapped.send(new InvokeModelCommand(input));
      text = (JSON.parse(dec.decode(out.body)) as { content: Array<{ text: string }> }).content[0]?.text ?? '';
    }
    expect(text).toBe(REPLY.join(''));
    const sent = server.lastJson() as typeof body & { system: Array<Record<string, unknown>> };
    expect(sent.anthropic_version).toBe('bedrock-2023-05-31');
    expect(sent.system[0]).toEqual(body.system[0]);
    expect(sent.system[1]?.['text']).toMatch(/^<engram_context>/);
    expect(stripBlock(sent)).toEqual(body);
    expect(input.body).toBe(raw);
    await waitFor(() => writer.batches.length === 1);
    expect(writer.batches[0]?.inputs.map((i) => i.text)).toEqual([Q, REPLY.join('')]);
  });
});

describe('bedrock wrapper behaviour', () => {
  it('nothing relevant: the same command object is sent, byte-identical', async () => {
    const input: ConverseCommandInput = { modelId: 'm', messages: [{ role: 'user', content: [{ text: Q }] }] };
    await client.send(new ConverseCommand(input));
    const plain = server.requests.at(-1)!.body;
    await wrapBedrock(client, { recaller: new FixedRecaller([]), scope: SCOPE }).send(new ConverseCommand(input));
    expect(server.requests.at(-1)!.body.equals(plain)).toBe(true);
  });

  it('the caller command is never modified', async () => {
    const command = new ConverseCommand({ modelId: 'm', messages: [{ role: 'user', content: [{ text: Q }] }] });
    await wrapBedrock(client, { recaller: new FixedRecaller(HITS), scope: SCOPE }).send(command);
    expect(command.input.system).toBeUndefined();
    expect(countBlocks(server.lastJson())).toBe(1);
  });

  it('other commands pass through untouched', async () => {
    const recaller = new FixedRecaller(HITS);
    const wrapped = wrapBedrock(client, { recaller, scope: SCOPE });
    await wrapped.send(new ListAsyncInvokesCommand({})).catch(() => undefined);
    expect(recaller.calls).toHaveLength(0);
  });
});

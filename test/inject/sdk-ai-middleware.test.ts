import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, wrapLanguageModel, type ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engramMiddleware } from '../../src/inject/wrappers/ai-sdk-middleware.js';
import type { InjectEvent } from '../../src/inject/inject-event.js';
import { FixedRecaller, HITS, RecordingWriter, SCOPE } from './helpers/fixtures.js';
import { RecordingServer, SSE_HEADERS, sse, type RecordedRequest, type Reply } from './helpers/recording-server.js';
import { countBlocks, stripBlock } from './helpers/strip-block.js';
import { waitFor } from './helpers/wait-for.js';

const REPLY = ['Rice ', 'noodles ', 'are safe.'];

function reply(req: RecordedRequest): Reply {
  const body = req.json as { stream?: boolean; model: string };
  const base = { id: 'chatcmpl-1', created: 1, model: body.model };
  if (body.stream === true) {
    return {
      headers: SSE_HEADERS,
      chunks: [
        sse({
          ...base,
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
        }),
        ...REPLY.map((t) =>
          sse({
            ...base,
            object: 'chat.completion.chunk',
            choices: [{ index: 0, delta: { content: t }, finish_reason: null }],
          }),
        ),
        sse({
          ...base,
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
          usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
        }),
        sse('[DONE]'),
      ],
    };
  }
  return {
    body: JSON.stringify({
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: REPLY.join('') }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 },
    }),
  };
}

const server = new RecordingServer(reply);
let provider: ReturnType<typeof createOpenAI>;

beforeAll(async () => {
  await server.start();
  provider = createOpenAI({ apiKey: 'test-key', baseURL: server.url });
});
afterAll(async () => server.close());

const Q = 'Which noodles can I eat?';

const CASES: Array<{ name: string; system?: string; messages: ModelMessage[] }> = [
  { name: 'prompt without system', messages: [{ role: 'user', content: Q }] },
  {
    name: 'system + history + multi-part user message',
    system: 'You are a nutritionist.',
    messages: [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
      {
        role: 'user',
        content: [
          { type: 'text', text: Q },
          { type: 'image', image: new URL('https://example.invalid/x.png') },
        ],
      },
    ],
  },
];

describe.each(CASES)(
  'AI SDK middleware (v3) with @ai-sdk/openai against a local server: $name',
  ({ system, messages }) => {
    it.each([false, true])('stream=%s', async (stream) => {
      const run = async (model: Parameters<typeof generateText>[0]['model']): Promise<string> => {
        const args = { model, messages, ...(system === undefined ? {} : { system }), maxRetries: 0 };
        if (!stream) return (await generateText(args)).text;
        const result = streamText(args);
        let text = '';
        for await (const t of result.textStream) text += t;
        return text;
      };
      const plain = await run(provider.chat('gpt-x'));
      const plainBody = server.lastJson();

      const writer = new RecordingWriter();
      const events: InjectEvent[] = [];
      const middleware = engramMiddleware({
        recaller: new FixedRecaller(HITS),
        scope: SCOPE,
        capture: { writer },
        onEvent: (e) => events.push(e),
      });
      expect(middleware.specificationVersion).toBe('v3');
      const text = await run(wrapLanguageModel({ model: provider.chat('gpt-x'), middleware }));
      const body = server.lastJson() as { messages: Array<{ role: string; content: unknown }> };

      expect(text).toBe(plain);
      expect(text).toBe(REPLY.join(''));
      expect(countBlocks(body)).toBe(1);
      const at = system === undefined ? 0 : 1;
      expect(body.messages[at]?.role).toBe('system');
      expect(String(body.messages[at]?.content)).toMatch(/^<engram_context>\n/);
      if (system !== undefined) expect(body.messages[0]).toEqual({ role: 'system', content: system });
      expect(stripBlock(body)).toEqual(plainBody);
      expect(events[0]).toMatchObject({ type: 'injected', provider: 'ai-sdk-prompt', query: Q });
      await waitFor(() => writer.batches.length === 1);
      expect(writer.batches[0]?.inputs.map((i) => i.text)).toEqual([Q, REPLY.join('')]);
    });
  },
);

describe('AI SDK middleware behaviour', () => {
  it('nothing relevant: byte-identical request', async () => {
    const messages: ModelMessage[] = [{ role: 'user', content: Q }];
    await generateText({ model: provider.chat('gpt-x'), messages });
    const plain = server.requests.at(-1)!.body;
    const model = wrapLanguageModel({
      model: provider.chat('gpt-x'),
      middleware: engramMiddleware({ recaller: new FixedRecaller([]), scope: SCOPE }),
    });
    await generateText({ model, messages });
    expect(server.requests.at(-1)!.body.equals(plain)).toBe(true);
  });

  it('v4 (AI SDK 7, not installable on Node 20): same prompt shape, block added as a system message', async () => {
    const middleware = engramMiddleware({
      recaller: new FixedRecaller(HITS),
      scope: SCOPE,
      specificationVersion: 'v4',
    });
    expect(middleware.specificationVersion).toBe('v4');
    const params = {
      prompt: [
        { role: 'system', content: 'S' },
        { role: 'user', content: [{ type: 'text', text: Q }] },
      ],
      maxOutputTokens: 9,
    };
    const out = (await middleware.transformParams({ type: 'generate', params })) as typeof params;
    expect(out.prompt).toHaveLength(3);
    expect(out.prompt[0]).toEqual({ role: 'system', content: 'S' });
    expect(out.prompt[1]?.role).toBe('system');
    expect(String(out.prompt[1]?.content)).toContain('User is allergic to peanuts');
    expect(stripBlock(out)).toEqual(params);
    expect(params.prompt).toHaveLength(2);
  });
});

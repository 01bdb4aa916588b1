import { describe, expect, it } from 'vitest';
import { extractQuery, injectBlock, providers, type ProviderName } from '../../src/inject/providers/index.js';
import { deepFreeze } from './helpers/fixtures.js';

const B = '<engram_context>\nctx\n</engram_context>';
const enc = new TextEncoder();
const dec = new TextDecoder();

interface Case {
  shape: ProviderName;
  name: string;
  request: unknown;
  query: string | null;
  /** The expected request after injecting B. */
  injected: unknown;
}

const cache = { type: 'ephemeral' };

const CASES: Case[] = [
  // OpenAI chat
  {
    shape: 'openai-chat',
    name: 'no system message: one is inserted first',
    request: { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
    query: 'hi',
    injected: {
      model: 'm',
      messages: [
        { role: 'system', content: B },
        { role: 'user', content: 'hi' },
      ],
    },
  },
  {
    shape: 'openai-chat',
    name: 'system string: appended after a blank line',
    request: {
      model: 'm',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'q2' },
      ],
    },
    query: 'q2',
    injected: {
      model: 'm',
      messages: [
        { role: 'system', content: `Be brief.\n\n${B}` },
        { role: 'user', content: 'q1' },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'q2' },
      ],
    },
  },
  {
    shape: 'openai-chat',
    name: 'developer parts (not first): text part appended; user parts joined, image skipped',
    request: {
      messages: [
        { role: 'user', content: 'older' },
        { role: 'developer', content: [{ type: 'text', text: 'Dev.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is' },
            { type: 'image_url', image_url: { url: 'data:x' } },
            { type: 'text', text: 'this?' },
          ],
        },
      ],
    },
    query: 'what is\nthis?',
    injected: {
      messages: [
        { role: 'user', content: 'older' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'Dev.' },
            { type: 'text', text: B },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is' },
            { type: 'image_url', image_url: { url: 'data:x' } },
            { type: 'text', text: 'this?' },
          ],
        },
      ],
    },
  },
  {
    shape: 'openai-chat',
    name: 'tool turn last: query from the last user message with text',
    request: {
      messages: [
        { role: 'user', content: 'weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'w', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: '5C' },
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] },
      ],
    },
    query: 'weather in Oslo?',
    injected: {
      messages: [
        { role: 'system', content: B },
        { role: 'user', content: 'weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'w', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c', content: '5C' },
        { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] },
      ],
    },
  },
  // OpenAI Responses
  {
    shape: 'openai-responses',
    name: 'string input, no instructions',
    request: { model: 'm', input: 'hello there' },
    query: 'hello there',
    injected: { model: 'm', input: 'hello there', instructions: B },
  },
  {
    shape: 'openai-responses',
    name: 'items with input_text parts, instructions string',
    request: {
      instructions: 'Be kind.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'one' }] },
        { type: 'function_call_output', call_id: 'x', output: '42' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_image', image_url: 'u' },
            { type: 'input_text', text: 'two' },
            { type: 'input_file', file_id: 'f' },
          ],
        },
      ],
    },
    query: 'two',
    injected: {
      instructions: `Be kind.\n\n${B}`,
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'one' }] },
        { type: 'function_call_output', call_id: 'x', output: '42' },
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_image', image_url: 'u' },
            { type: 'input_text', text: 'two' },
            { type: 'input_file', file_id: 'f' },
          ],
        },
      ],
    },
  },
  {
    shape: 'openai-responses',
    name: 'instructions null',
    request: { instructions: null, input: [{ role: 'user', content: 'x' }] },
    query: 'x',
    injected: { instructions: B, input: [{ role: 'user', content: 'x' }] },
  },
  // Anthropic
  {
    shape: 'anthropic-messages',
    name: 'no system',
    request: { model: 'c', max_tokens: 10, messages: [{ role: 'user', content: 'hey' }] },
    query: 'hey',
    injected: { model: 'c', max_tokens: 10, system: B, messages: [{ role: 'user', content: 'hey' }] },
  },
  {
    shape: 'anthropic-messages',
    name: 'system blocks with cache_control: new last block, breakpoint untouched',
    request: {
      system: [
        { type: 'text', text: 'Long prompt', cache_control: cache },
        { type: 'text', text: 'Tail' },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'x' } },
            { type: 'text', text: 'describe' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'res' }] },
      ],
    },
    query: 'describe',
    injected: {
      system: [
        { type: 'text', text: 'Long prompt', cache_control: cache },
        { type: 'text', text: 'Tail' },
        { type: 'text', text: B },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'x' } },
            { type: 'text', text: 'describe' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'res' }] },
      ],
    },
  },
  {
    shape: 'anthropic-messages',
    name: 'system string',
    request: { system: 'S', messages: [{ role: 'user', content: 'q' }] },
    query: 'q',
    injected: { system: `S\n\n${B}`, messages: [{ role: 'user', content: 'q' }] },
  },
  // Bedrock Converse
  {
    shape: 'bedrock-converse',
    name: 'system with cachePoint and guardContent kept in place',
    request: {
      modelId: 'anthropic.claude',
      system: [{ text: 'Sys' }, { guardContent: { text: { text: 'guarded' } } }, { cachePoint: { type: 'default' } }],
      messages: [
        {
          role: 'user',
          content: [{ text: 'part one' }, { image: { format: 'png', source: { bytes: 'x' } } }, { text: 'part two' }],
        },
      ],
    },
    query: 'part one\npart two',
    injected: {
      modelId: 'anthropic.claude',
      system: [
        { text: 'Sys' },
        { guardContent: { text: { text: 'guarded' } } },
        { cachePoint: { type: 'default' } },
        { text: B },
      ],
      messages: [
        {
          role: 'user',
          content: [{ text: 'part one' }, { image: { format: 'png', source: { bytes: 'x' } } }, { text: 'part two' }],
        },
      ],
    },
  },
  {
    shape: 'bedrock-converse',
    name: 'no system; toolResult turn skipped',
    request: {
      modelId: 'm',
      messages: [
        { role: 'user', content: [{ text: 'find it' }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ text: 'r' }] } }] },
      ],
    },
    query: 'find it',
    injected: {
      modelId: 'm',
      system: [{ text: B }],
      messages: [
        { role: 'user', content: [{ text: 'find it' }] },
        { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ text: 'r' }] } }] },
      ],
    },
  },
  // Google genai
  {
    shape: 'google-genai',
    name: 'string contents, no config',
    request: { model: 'g', contents: 'hi gemini' },
    query: 'hi gemini',
    injected: { model: 'g', contents: 'hi gemini', config: { systemInstruction: B } },
  },
  {
    shape: 'google-genai',
    name: 'Content[] with roles; systemInstruction string; other config kept',
    request: {
      model: 'g',
      contents: [
        { role: 'user', parts: [{ text: 'first' }] },
        { role: 'model', parts: [{ text: 'reply' }] },
        {
          role: 'user',
          parts: [
            { inlineData: { mimeType: 'image/png', data: 'x' } },
            { text: 'second' },
            { functionResponse: { name: 'f', response: {} } },
          ],
        },
      ],
      config: { temperature: 0.2, systemInstruction: 'Sys' },
    },
    query: 'second',
    injected: {
      model: 'g',
      contents: [
        { role: 'user', parts: [{ text: 'first' }] },
        { role: 'model', parts: [{ text: 'reply' }] },
        {
          role: 'user',
          parts: [
            { inlineData: { mimeType: 'image/png', data: 'x' } },
            { text: 'second' },
            { functionResponse: { name: 'f', response: {} } },
          ],
        },
      ],
      config: { temperature: 0.2, systemInstruction: `Sys\n\n${B}` },
    },
  },
  {
    shape: 'google-genai',
    name: 'systemInstruction as Content: first text part appended, rest kept',
    request: {
      contents: [{ text: 'a' }, 'b'],
      config: {
        systemInstruction: { role: 'system', parts: [{ fileData: { fileUri: 'u' } }, { text: 'T1' }, { text: 'T2' }] },
      },
    },
    query: 'a\nb',
    injected: {
      contents: [{ text: 'a' }, 'b'],
      config: {
        systemInstruction: {
          role: 'system',
          parts: [{ fileData: { fileUri: 'u' } }, { text: `T1\n\n${B}` }, { text: 'T2' }],
        },
      },
    },
  },
  {
    shape: 'google-genai',
    name: 'systemInstruction as Part[] of strings',
    request: {
      contents: { role: 'user', parts: [{ text: 'q' }] },
      config: { systemInstruction: ['S1', { text: 'S2' }] },
    },
    query: 'q',
    injected: {
      contents: { role: 'user', parts: [{ text: 'q' }] },
      config: { systemInstruction: [`S1\n\n${B}`, { text: 'S2' }] },
    },
  },
  {
    shape: 'google-genai',
    name: 'systemInstruction as a Part',
    request: { contents: { text: 'q' }, config: { systemInstruction: { text: 'P' } } },
    query: 'q',
    injected: { contents: { text: 'q' }, config: { systemInstruction: { text: `P\n\n${B}` } } },
  },
  {
    shape: 'google-genai',
    name: 'older SDK: top-level systemInstruction',
    request: { contents: 'q', systemInstruction: { parts: [{ text: 'Old' }] } },
    query: 'q',
    injected: { contents: 'q', systemInstruction: { parts: [{ text: `Old\n\n${B}` }] } },
  },
  // AI SDK prompt
  {
    shape: 'ai-sdk-prompt',
    name: 'after the leading system messages',
    request: {
      prompt: [
        { role: 'system', content: 'S1' },
        { role: 'system', content: 'S2' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hello' },
            { type: 'file', mediaType: 'image/png', data: 'x' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'v' } }],
        },
      ],
      maxOutputTokens: 5,
    },
    query: 'hello',
    injected: {
      prompt: [
        { role: 'system', content: 'S1' },
        { role: 'system', content: 'S2' },
        { role: 'system', content: B },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hello' },
            { type: 'file', mediaType: 'image/png', data: 'x' },
          ],
        },
        { role: 'assistant', content: [{ type: 'text', text: 'hi' }] },
        {
          role: 'tool',
          content: [{ type: 'tool-result', toolCallId: 'c', toolName: 't', output: { type: 'text', value: 'v' } }],
        },
      ],
      maxOutputTokens: 5,
    },
  },
  {
    shape: 'ai-sdk-prompt',
    name: 'no system message',
    request: { prompt: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] },
    query: 'q',
    injected: {
      prompt: [
        { role: 'system', content: B },
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
      ],
    },
  },
];

describe.each(CASES)('$shape: $name', ({ shape, request, query, injected }) => {
  it('extracts the last user text', () => {
    expect(extractQuery(shape, request)).toBe(query);
  });

  it('injects in place, keeps everything else, never mutates the input', () => {
    const before = JSON.stringify(request);
    const frozen = deepFreeze(structuredClone(request));
    const out = injectBlock(shape, frozen, B);
    expect(out).toEqual(injected);
    expect(JSON.stringify(frozen)).toBe(before);
    expect(out).not.toBe(frozen);
  });
});

describe('bedrock-invoke-anthropic', () => {
  const body = {
    anthropic_version: 'bedrock-2023-05-31',
    max_tokens: 20,
    system: [{ type: 'text', text: 'S', cache_control: cache }],
    messages: [{ role: 'user', content: [{ type: 'text', text: 'q?' }] }],
  };
  const expected = { ...body, system: [...body.system, { type: 'text', text: B }] };

  it.each([
    ['string body', JSON.stringify(body)],
    ['bytes body', enc.encode(JSON.stringify(body))],
  ])('%s: query, injection keeps the body type and the Anthropic shape', (_n, raw) => {
    const input = { modelId: 'anthropic.claude', contentType: 'application/json', body: raw };
    expect(extractQuery('bedrock-invoke-anthropic', input)).toBe('q?');
    const out = injectBlock('bedrock-invoke-anthropic', input, B);
    expect(typeof out.body).toBe(typeof raw);
    const parsed: unknown = JSON.parse(typeof out.body === 'string' ? out.body : dec.decode(out.body));
    expect(parsed).toEqual(expected);
    expect(input.body).toBe(raw);
    expect(out.modelId).toBe('anthropic.claude');
  });

  it.each([
    ['titan body', JSON.stringify({ inputText: 'hello' })],
    ['not json', 'hello {'],
    ['no anthropic_version', JSON.stringify({ messages: [{ role: 'user', content: 'q' }] })],
  ])('leaves %s alone', (_n, raw) => {
    const input = { modelId: 'x', body: raw };
    expect(extractQuery('bedrock-invoke-anthropic', input)).toBeNull();
    expect(injectBlock('bedrock-invoke-anthropic', input, B)).toBe(input);
  });
});

const ODD: unknown[] = [
  undefined,
  null,
  42,
  'text',
  [],
  {},
  { messages: 'nope' },
  {
    messages: [
      null,
      1,
      'x',
      { role: 'user' },
      { role: 'user', content: 5 },
      { role: 'user', content: [null, { type: 'text' }, { type: 'text', text: 7 }] },
    ],
  },
  { input: [null, { role: 'user', content: {} }] },
  { contents: [null, 3] },
  { contents: { parts: 'x' } },
  { prompt: [{ role: 'user', content: [{ type: 'text', text: '   ' }] }] },
  { modelId: 'm', body: new Uint8Array([0xff, 0xfe]) },
  { system: 5, messages: [{ role: 'user', content: 'q' }] },
];

describe.each(Object.keys(providers) as ProviderName[])('%s never crashes on odd input', (shape) => {
  it.each(ODD.map((o) => [JSON.stringify(o) ?? String(o), o]))('%s', (_label, odd) => {
    expect(() => extractQuery(shape, odd)).not.toThrow();
    const q = extractQuery(shape, odd);
    expect(q === null || typeof q === 'string').toBe(true);
    expect(() => injectBlock(shape, odd, B)).not.toThrow();
  });
});

describe('unrecognised shapes come back as the same object', () => {
  it.each<[ProviderName, unknown]>([
    ['openai-chat', { input: 'x' }],
    ['openai-responses', { input: 'x', instructions: 5 }],
    ['anthropic-messages', { system: 5, messages: [] }],
    ['bedrock-converse', { system: 'not an array' }],
    ['google-genai', { contents: 'x', config: 'bad' }],
    ['ai-sdk-prompt', { messages: [] }],
  ])('%s %j', (shape, req) => {
    expect(injectBlock(shape, req, B)).toBe(req);
  });
});

describe('reply extraction', () => {
  it.each<[ProviderName, unknown, string | null]>([
    ['openai-chat', { choices: [{ message: { role: 'assistant', content: 'yes' } }] }, 'yes'],
    [
      'openai-responses',
      {
        output: [
          { type: 'reasoning' },
          { type: 'message', content: [{ type: 'output_text', text: 'ok' }, { type: 'refusal' }] },
        ],
      },
      'ok',
    ],
    [
      'anthropic-messages',
      {
        content: [
          { type: 'thinking', thinking: 'hm' },
          { type: 'text', text: 'A' },
          { type: 'text', text: 'B' },
        ],
      },
      'A\nB',
    ],
    ['bedrock-converse', { output: { message: { role: 'assistant', content: [{ text: 'C' }] } } }, 'C'],
    ['bedrock-invoke-anthropic', { body: enc.encode(JSON.stringify({ content: [{ type: 'text', text: 'D' }] })) }, 'D'],
    [
      'google-genai',
      { candidates: [{ content: { role: 'model', parts: [{ text: 'plan', thought: true }, { text: 'E' }] } }] },
      'E',
    ],
    [
      'ai-sdk-prompt',
      {
        content: [
          { type: 'reasoning', text: 'r' },
          { type: 'text', text: 'F' },
        ],
      },
      'F',
    ],
    ['openai-chat', { choices: [] }, null],
  ])('%s', (shape, response, text) => {
    expect(providers[shape].replyText(response)).toBe(text);
  });

  it.each<[ProviderName, unknown, string | null]>([
    ['openai-chat', { choices: [{ delta: { content: 'x' } }] }, 'x'],
    ['openai-responses', { type: 'response.output_text.delta', delta: 'y' }, 'y'],
    ['anthropic-messages', { type: 'content_block_delta', delta: { type: 'text_delta', text: 'z' } }, 'z'],
    [
      'anthropic-messages',
      { type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '{' } },
      null,
    ],
    ['bedrock-converse', { contentBlockDelta: { delta: { text: 'w' } } }, 'w'],
    [
      'bedrock-invoke-anthropic',
      {
        chunk: {
          bytes: enc.encode(JSON.stringify({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'v' } })),
        },
      },
      'v',
    ],
    ['google-genai', { candidates: [{ content: { parts: [{ text: 'u' }] } }] }, 'u'],
    ['ai-sdk-prompt', { type: 'text-delta', id: '1', delta: 't' }, 't'],
  ])('stream delta %s', (shape, chunk, text) => {
    expect(providers[shape].streamDeltaText(chunk)).toBe(text);
  });
});

import { GoogleGenAI, type GenerateContentParameters } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapGoogleGenAI } from '../../src/inject/wrappers/google-genai.js';
import type { InjectEvent } from '../../src/inject/inject-event.js';
import { FixedRecaller, HITS, RecordingWriter, SCOPE } from './helpers/fixtures.js';
import { RecordingServer, SSE_HEADERS, sse, type RecordedRequest, type Reply } from './helpers/recording-server.js';
import { countBlocks, stripBlock } from './helpers/strip-block.js';
import { waitFor } from './helpers/wait-for.js';

const REPLY = ['Try ', 'a sesame ', 'dressing.'];

function chunk(text: string, last: boolean): unknown {
  return {
    candidates: [
      { content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) },
    ],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 },
    modelVersion: 'gemini-x',
  };
}

function reply(req: RecordedRequest): Reply {
  if (req.url.includes(':streamGenerateContent')) {
    return { headers: SSE_HEADERS, chunks: REPLY.map((t, i) => sse(chunk(t, i === REPLY.length - 1))) };
  }
  return { body: JSON.stringify(chunk(REPLY.join(''), true)) };
}

const server = new RecordingServer(reply);
let ai: GoogleGenAI;

beforeAll(async () => {
  await server.start();
  ai = new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: server.url } });
});
afterAll(async () => server.close());

const Q = 'Any salad ideas?';

const CASES: Array<{ name: string; params: GenerateContentParameters; query?: string }> = [
  { name: 'string contents, no config', params: { model: 'gemini-x', contents: Q } },
  {
    name: 'Content[] with roles, systemInstruction string, generation config',
    params: {
      model: 'gemini-x',
      contents: [
        { role: 'user', parts: [{ text: 'Hi' }] },
        { role: 'model', parts: [{ text: 'Hello' }] },
        { role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }, { text: Q }] },
      ],
      config: { systemInstruction: 'You are a chef.', temperature: 0.1, maxOutputTokens: 64 },
    },
  },
  {
    name: 'systemInstruction as Content with several parts',
    params: {
      model: 'gemini-x',
      contents: [{ role: 'user', parts: [{ text: Q }] }],
      config: { systemInstruction: { parts: [{ text: 'Rule 1' }, { text: 'Rule 2' }] } },
    },
  },
  {
    name: 'systemInstruction as Part[]',
    params: { model: 'gemini-x', contents: Q, config: { systemInstruction: [{ text: 'P1' }, { text: 'P2' }] } },
  },
];

async function run(client: GoogleGenAI, params: GenerateContentParameters, stream: boolean): Promise<string> {
  if (!stream) return (await client.models.generateContent(params)).text ?? '';
  let text = '';
  for await (const c of await client.models.generateContentStream(params)) text += c.text ?? '';
  return text;
}

describe.each(CASES)('@google/genai against a local server: $name', ({ params, query }) => {
  it.each([false, true])('stream=%s', async (stream) => {
    const frozen = structuredClone(params);
    const plain = await run(ai, params, stream);
    const plainReq = server.requests.at(-1)!;
    const writer = new RecordingWriter();
    const events: InjectEvent[] = [];
    const wrapped = wrapGoogleGenAI(ai, {
      recaller: new FixedRecaller(HITS),
      scope: SCOPE,
      capture: { writer },
      onEvent: (e) => events.push(e),
    });
    const text = await run(wrapped, params, stream);
    const req = server.requests.at(-1)!;
    const body = req.json as { systemInstruction?: { parts: Array<{ text?: string }> } };
    expect(req.url).toBe(plainReq.url);
    expect(text).toBe(plain);
    expect(text).toBe(REPLY.join(''));
    expect(countBlocks(body)).toBe(1);
    // The block is appended to the first text part of the system instruction.
    expect(body.systemInstruction?.parts[0]?.text).toMatch(
      /<engram_context>\n[\s\S]*User is allergic to peanuts[\s\S]*<\/engram_context>$/,
    );
    const stripped = stripBlock(body) as Record<string, unknown>;
    if (params.config === undefined) {
      // The SDK sends `generationConfig: {}` whenever `config` exists; it had none before.
      expect(stripped['generationConfig']).toEqual({});
      delete stripped['generationConfig'];
    }
    expect(stripped).toEqual(plainReq.json);
    expect(params).toEqual(frozen);
    expect(events[0]).toMatchObject({ type: 'injected', provider: 'google-genai', query: query ?? Q });
    await waitFor(() => writer.batches.length === 1);
    expect(writer.batches[0]?.inputs.map((i) => i.text)).toEqual([query ?? Q, REPLY.join('')]);
  });
});

describe('google wrapper behaviour', () => {
  it('nothing relevant: byte-identical request', async () => {
    const params = { model: 'gemini-x', contents: Q, config: { systemInstruction: 'S' } };
    await ai.models.generateContent(params);
    const plain = server.requests.at(-1)!.body;
    await wrapGoogleGenAI(ai, { recaller: new FixedRecaller([]), scope: SCOPE }).models.generateContent(params);
    expect(server.requests.at(-1)!.body.equals(plain)).toBe(true);
  });

  it('chat sessions created on the view go through the wrapper; the block stays out of the history', async () => {
    const writer = new RecordingWriter();
    const wrapped = wrapGoogleGenAI(ai, { recaller: new FixedRecaller(HITS), scope: SCOPE, capture: { writer } });
    const chat = wrapped.chats.create({ model: 'gemini-x', config: { systemInstruction: 'Be a chef.' } });
    expect((await chat.sendMessage({ message: 'First question?' })).text).toBe(REPLY.join(''));
    let streamed = '';
    for await (const c of await chat.sendMessageStream({ message: Q })) streamed += c.text ?? '';
    expect(streamed).toBe(REPLY.join(''));
    const body = server.lastJson() as {
      contents: Array<{ role: string; parts: Array<{ text: string }> }>;
      systemInstruction: { parts: Array<{ text: string }> };
    };
    expect(countBlocks(body)).toBe(1);
    expect(body.systemInstruction.parts[0]?.text).toMatch(/^Be a chef\.\n\n<engram_context>/);
    expect(body.contents.map((c) => c.parts[0]?.text)).toEqual(['First question?', REPLY.join(''), Q]);
    expect(chat.getHistory().some((c) => JSON.stringify(c).includes('engram_context'))).toBe(false);
    await waitFor(() => writer.batches.length === 2);
    expect(writer.batches.map((b) => b.inputs[0]?.text)).toEqual(['First question?', Q]);
    // A chat created on the unwrapped client is not affected.
    await ai.chats.create({ model: 'gemini-x' }).sendMessage({ message: Q });
    expect(countBlocks(server.lastJson())).toBe(0);
  });

  it('other methods of the client are untouched and work', async () => {
    const wrapped = wrapGoogleGenAI(ai, { recaller: new FixedRecaller(HITS), scope: SCOPE });
    expect(wrapped.models.countTokens).toBe(ai.models.countTokens);
    expect(ai.models.generateContent).not.toBe(wrapped.models.generateContent);
  });
});

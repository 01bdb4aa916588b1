// The official `openai` client wrapped by engram-memory/inject, against a local server speaking
// the OpenAI chat completions wire format (JSON and server-sent events). test/package runs it
// in a project that installed the packed tarball and checks what the server received.
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { Engram, openStore, type Scope } from 'engram-memory';
import { createLocalEmbedder } from 'engram-memory/embed';
import { createInjector, wrapOpenAI, type InjectEvent } from 'engram-memory/inject';

interface ChatBody {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: unknown }>;
}

const received: ChatBody[] = [];
const REPLY = 'Try a peanut-free vegetable curry.';

function answer(body: ChatBody, res: ServerResponse): void {
  const base = { id: `chatcmpl-${received.length}`, created: 1_700_000_000, model: body.model };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 20, completion_tokens: 8, total_tokens: 28 },
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const words = REPLY.split(/(?<= )/);
  for (const [i, word] of words.entries()) {
    const delta = i === 0 ? { role: 'assistant', content: word } : { content: word };
    res.write(
      `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`,
    );
  }
  res.write(
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`,
  );
  res.end('data: [DONE]\n\n');
}

const server = createServer((req: IncomingMessage, res: ServerResponse) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatBody;
    received.push(body);
    answer(body, res);
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

const dir = mkdtempSync(join(tmpdir(), 'engram-openai-'));
const engram = await Engram.open({ store: await openStore(join(dir, 'engram.db')), embedder: createLocalEmbedder() });
const alice: Scope = { tenant: 'acme', user: 'alice' };
await engram.add({ text: 'Alice is allergic to peanuts', type: 'UserMemory' }, { scope: alice });
await engram.recall('warm up', { scope: alice });

const events: InjectEvent['type'][] = [];
const injector = createInjector({
  recaller: engram,
  scope: alice,
  capture: { writer: engram, scope: { ...alice, session: 'chat-1' } },
  onEvent: (event) => void events.push(event.type),
});
const openai = wrapOpenAI(new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-local-test' }), injector);
const messages = [{ role: 'user' as const, content: 'What can I cook tonight?' }];
const completion = await openai.chat.completions.create({ model: 'gpt-4.1', messages });
let streamed = '';
for await (const chunk of await openai.chat.completions.create({ model: 'gpt-4.1', messages, stream: true })) {
  streamed += chunk.choices[0]?.delta.content ?? '';
}
await injector.idle();
const captured = await engram.list({ scope: { ...alice, session: 'chat-1' } });

console.log(
  JSON.stringify({
    reply: completion.choices[0]?.message.content ?? null,
    streamed,
    systemMessages: received.map((body) => body.messages.find((m) => m.role === 'system')?.content ?? null),
    events,
    captured: captured.items.map((memory) => memory.text).sort(),
  }),
);
await engram.close();
server.close();

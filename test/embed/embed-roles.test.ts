import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbedOptions, Embedder, EmbedRole } from '../../src/embed/embedder.js';
import { Engram } from '../../src/engram.js';
import { apiRanker } from '../../src/eval/eval-ranker.js';
import { evaluate } from '../../src/eval/run-eval.js';
import { wrapOpenAI } from '../../src/inject/wrappers/openai.js';
import { createOpenAICompatibleChat } from '../../src/llm/openai-compatible-chat.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { startScriptedLlm, type ScriptedLlmServer } from '../formation/support/scripted-llm-server.js';
import { RecordingServer } from '../inject/helpers/recording-server.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

/**
 * An asymmetric embedder (like e5 or bge): queries are embedded with a prefix, documents without,
 * so a query sent as a document gets another vector. It records every call's role and texts.
 */
class PrefixEmbedder implements Embedder {
  readonly model = 'prefix-asym';
  readonly dim = 64;
  readonly asymmetric = true;
  readonly calls: Array<{ role: EmbedRole | undefined; texts: string[] }> = [];
  private readonly inner = new HashedEmbedder({ dim: 64 });

  embed(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
    this.calls.push({ role: options?.role, texts: [...texts] });
    return this.inner.embed(options?.role === 'query' ? texts.map((t) => `query: ${t}`) : texts);
  }

  /** Roles of the calls made since `from`, with the texts they embedded. */
  since(from: number): Array<[EmbedRole | undefined, string[]]> {
    return this.calls.slice(from).map((c) => [c.role, c.texts]);
  }
}

const scope = { tenant: 't', user: 'u' };
const llmPlan = {
  keys: ['peanuts'],
  tags: ['diet'],
  rephrased_query: 'what is the user allergic to',
  memories: ['The user is allergic to peanuts'],
  internet_search: false,
  goal_type: 'question',
};
let llm: ScriptedLlmServer;
let chatServer: RecordingServer;
let embedder: PrefixEmbedder;
let engram: Engram;

beforeAll(async () => {
  llm = await startScriptedLlm({
    rules: [
      { name: 'plan', match: 'retrieval plan', reply: { content: llmPlan } },
      {
        name: 'decompose',
        match: 'several things at once',
        reply: { content: { is_complex: false, sub_questions: [] } },
      },
    ],
  });
  chatServer = new RecordingServer(() => ({
    body: JSON.stringify({
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 'gpt-x',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    }),
  }));
  await chatServer.start();
  embedder = new PrefixEmbedder();
  engram = await Engram.open({
    store: createSqliteStore({ path: ':memory:' }),
    embedder,
    env: {},
    trackUsage: false,
    search: { llm: createOpenAICompatibleChat({ baseUrl: llm.openaiBaseUrl, model: 'planner' }) },
  });
});
afterAll(async () => {
  await engram.close();
  await llm.close();
  await chatServer.close();
});

describe('an asymmetric embedder gets the role of what it embeds, on every path', () => {
  it('stored texts are documents: add, addMany, update, re-embed', async () => {
    const from = embedder.calls.length;
    await engram.add({ id: 'a', key: 'allergy', text: 'Allergic to peanuts' }, { scope });
    await engram.addMany([{ id: 'b', text: 'Runs every spring' }], { scope });
    await engram.update('a', { text: 'Allergic to peanuts and cashews' }, { scope });
    await engram.reembed({ scope });
    const calls = embedder.since(from);
    expect(calls.slice(0, 3)).toEqual([
      ['document', ['Allergic to peanuts']],
      ['document', ['Runs every spring']],
      ['document', ['Allergic to peanuts and cashews']],
    ]);
    expect(calls.slice(3).map(([role]) => role)).toEqual(['document']);
    expect(
      calls
        .slice(3)
        .flatMap(([, texts]) => texts)
        .sort(),
    ).toEqual(['Allergic to peanuts and cashews', 'Runs every spring']);
  });

  it('recall and fast search embed the query as a query, and rank with the query vector', async () => {
    const from = embedder.calls.length;
    const recalled = await engram.recall('peanuts', { scope, threshold: -1 });
    await engram.search('peanuts', { scope, mode: 'fast' });
    expect(embedder.since(from)).toEqual([
      ['query', ['peanuts']],
      ['query', ['peanuts']],
    ]);
    const [queryVector] = await new HashedEmbedder({ dim: 64 }).embed(['query: peanuts']);
    const [stored] = await new HashedEmbedder({ dim: 64 }).embed(['Allergic to peanuts and cashews']);
    let cos = 0;
    for (let i = 0; i < 64; i++) cos += (queryVector?.[i] ?? 0) * (stored?.[i] ?? 0);
    expect(recalled.hits.find((h) => h.memory.id === 'a')?.explanation.cosine).toBeCloseTo(cos, 5);
  });

  it("fine search embeds the LLM's rephrasing and expansions as queries", async () => {
    const from = embedder.calls.length;
    const result = await engram.search('what can I not eat?', { scope, mode: 'fine' });
    expect(result.plan.mode).toBe('fine');
    const calls = embedder.since(from);
    expect(calls.map(([role]) => role)).toEqual(['query']);
    expect(calls[0]?.[1]).toEqual(
      expect.arrayContaining(['what is the user allergic to', 'The user is allergic to peanuts']),
    );
  });

  it('the inject recaller and engram eval recall with query vectors', async () => {
    const client = new OpenAI({ apiKey: 'k', baseURL: chatServer.url, maxRetries: 0 });
    const wrapped = wrapOpenAI(client, { recaller: engram, scope });
    let from = embedder.calls.length;
    await wrapped.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'any allergies?' }] });
    expect(embedder.since(from).map(([role]) => role)).toEqual(['query']);
    from = embedder.calls.length;
    const report = await evaluate(
      apiRanker(engram, { mode: 'recall' }),
      [{ id: 'c1', query: 'peanut allergy', expected: ['allergy'] }],
      { scope, ks: [1, 3] },
    );
    expect(report.overall.n).toBe(1);
    const roles = embedder.since(from).map(([role]) => role);
    expect(roles.length).toBeGreaterThan(0);
    expect(new Set(roles)).toEqual(new Set(['query']));
  });
});

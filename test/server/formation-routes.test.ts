/**
 * Formation over HTTP on a real server (responses validated against their schemas): `POST
 * /v1/remember` answers once the turns are stored, the worker forms facts in the background,
 * `GET /v1/formation/status`, `/v1/formation/jobs`, `GET /v1/memories/{id}/history` with the key
 * as caller, recall `asOf` / `includeSuperseded`, the block's `since`, tenant and collection
 * limits; and `RemoteEngram` gives the same answers as the facade.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKeyStore, type KeyStore } from '../../src/auth/key-store.js';
import { RemoteEngram } from '../../src/client/remote-engram.js';
import type { Engram } from '../../src/engram.js';
import type { Memory } from '../../src/model/memory.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { consolidationRule, extractionRule, openFormed } from '../formation/support/formation-fixture.js';
import { startScriptedLlm, type ScriptedLlmServer } from '../formation/support/scripted-llm-server.js';

let dir: string;
let llm: ScriptedLlmServer;
let engram: Engram;
let server: RunningServer;
let keys: KeyStore;
let key: string;
let keyId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-formation-routes-'));
  llm = await startScriptedLlm({
    rules: [
      extractionRule('lisbon', 'Lisbon', [{ text: 'Ana lives in Lisbon', turn: 'Lisbon', key: 'user.residence' }]),
      extractionRule('berlin', 'Berlin', [{ text: 'Ana moved to Berlin', turn: 'Berlin', key: 'user.residence' }]),
      consolidationRule('supersede', 'Berlin', [
        { candidate: 'Ana moved to Berlin', action: 'SUPERSEDE', target: 'Ana lives in Lisbon' },
      ]),
      { name: 'nothing', match: 'durable memories', reply: { content: { memories: [] } } },
    ],
  });
  engram = await openFormed(createSqliteStore({ path: join(dir, 'engram.db') }), { provider: 'openai', server: llm });
  keys = openKeyStore({ path: join(dir, 'keys.sqlite') });
  const created = keys.create({ tenant: 'acme' });
  key = created.key;
  keyId = created.info.id;
  server = await startServer({ dataDir: dir, port: 0, engram, keys, validateResponses: true, closeEngram: true });
}, 60_000);

afterAll(async () => {
  await server?.close();
  keys?.close();
  await llm?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, as = key) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as T };
}

const ana = { user: 'ana' };
const turn = (session: string, text: string, at: string) => ({
  role: 'user',
  speaker: 'Ana',
  session,
  text,
  occurredAt: at,
});

describe('formation over REST', () => {
  it('remember → worker → facts; status, jobs, recall in time, history with the key as caller', async () => {
    const first = await request<{ turns: Array<{ id: string; action: string }>; jobs: number; formation: string }>(
      'POST',
      '/v1/remember',
      {
        scope: ana,
        messages: [turn('s1', 'I live in Lisbon.', '2024-05-10T09:00:00Z')],
      },
    );
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ jobs: 1, formation: 'queued', turns: [{ action: 'insert' }] });
    await engram.idle({ timeoutMs: 20_000 });
    await request('POST', '/v1/remember', {
      scope: ana,
      messages: [turn('s2', 'I moved to Berlin.', '2026-03-04T10:00:00Z')],
    });
    await engram.idle({ timeoutMs: 20_000 });

    const status = await request<{
      queue: { counts: Record<string, number> };
      llm: string;
      extractor: { method: string };
    }>('GET', '/v1/formation/status?user=ana');
    expect(status.json.queue.counts).toMatchObject({ succeeded: 2, dead: 0 });
    expect(status.json.extractor.method).toBe('llm');
    const jobs = await request<{ items: Array<{ state: string; result: { candidates: number } }> }>(
      'GET',
      '/v1/formation/jobs?states=succeeded',
    );
    expect(jobs.json.items.map((j) => j.result.candidates)).toEqual([1, 1]);

    const recall = (body: Record<string, unknown>) =>
      request<{ hits: Array<{ memory: Memory; explanation: { validity?: { state: string } } }> }>(
        'POST',
        '/v1/recall',
        {
          query: 'Where does Ana live?',
          scope: ana,
          types: ['UserMemory'],
          threshold: -1,
          ...body,
        },
      );
    expect((await recall({})).json.hits.map((h) => h.memory.text)).toEqual(['Ana moved to Berlin']);
    expect((await recall({ asOf: '2025-01-01T00:00:00Z' })).json.hits.map((h) => h.memory.text)).toEqual([
      'Ana lives in Lisbon',
    ]);
    const both = (await recall({ includeSuperseded: true })).json.hits;
    expect(Object.fromEntries(both.map((h) => [h.memory.text, h.explanation.validity?.state]))).toEqual({
      'Ana moved to Berlin': 'valid',
      'Ana lives in Lisbon': 'superseded',
    });
    const lisbon = both.find((h) => h.memory.text === 'Ana lives in Lisbon')?.memory as Memory;
    expect(lisbon).toMatchObject({ validTo: '2026-03-04T10:00:00.000Z', version: 2 });

    const history = await request<{ items: Array<{ kind: string; cause: { type: string } }> }>(
      'GET',
      `/v1/memories/${lisbon.id}/history?user=ana`,
    );
    expect(history.json.items.map((e) => [e.kind, e.cause.type])).toEqual([
      ['created', 'formation'],
      ['superseded', 'formation'],
    ]);
    const episode = await request<{ items: Array<{ kind: string; caller: { kind: string; id: string } }> }>(
      'GET',
      `/v1/memories/${first.json.turns[0]?.id}/history`,
    );
    expect(episode.json.items[0]).toMatchObject({ kind: 'created', caller: { kind: 'api-key', id: keyId } });

    const injected = await request<{ block: string }>('POST', '/v1/inject', {
      provider: 'openai-chat',
      scope: ana,
      types: ['UserMemory'],
      request: { model: 'x', messages: [{ role: 'user', content: 'Where does Ana live?' }] },
      block: { since: true },
    });
    expect(injected.json.block).toContain('- Ana moved to Berlin (since 2026-03-04)');
  });

  it('keys are the boundary: read-only keys cannot remember, other tenants see no history, limited keys see only their collections', async () => {
    const readOnly = keys.create({ tenant: 'acme', access: 'read' }).key;
    const refused = await request<{ error: { code: string } }>(
      'POST',
      '/v1/remember',
      { messages: [turn('x', 'hi', '2026-01-01T00:00:00Z')] },
      readOnly,
    );
    expect([refused.status, refused.json.error.code]).toEqual([403, 'FORBIDDEN']);
    const added = await engram.add({ text: 'A note of acme' }, { scope: { tenant: 'acme' } });
    const other = keys.create({ tenant: 'globex' }).key;
    expect(
      (await request<{ items: unknown[] }>('GET', `/v1/memories/${added.id}/history`, undefined, other)).json.items,
    ).toEqual([]);
    const limited = keys.create({ tenant: 'acme', collections: ['team'] }).key;
    const hidden = await request<{ error: { code: string } }>(
      'GET',
      `/v1/memories/${added.id}/history`,
      undefined,
      limited,
    );
    expect([hidden.status, hidden.json.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('RemoteEngram answers remember, history, status and jobs like the facade', async () => {
    const remote = new RemoteEngram({ url: server.url, apiKey: key });
    const scope = { tenant: 'acme', user: 'remote' };
    const result = await remote.remember([turn('r1', 'I keep bees.', '2026-01-01T00:00:00Z')], { scope });
    expect(result.turns).toHaveLength(1);
    const id = result.turns[0]?.id as string;
    expect(await remote.history(id, { scope })).toEqual(await engram.history(id, { scope }));
    await engram.idle({ timeoutMs: 20_000 });
    const [remoteStatus, localStatus] = [
      await remote.formationStatus({ scope }),
      await engram.formationStatus({ scope }),
    ];
    expect(remoteStatus.queue).toEqual(localStatus.queue);
    expect(await remote.formationJobs({ scope, states: ['dead'] })).toEqual({ items: [], nextCursor: null });
    await expect(remote.requeueFormation('nope', { scope })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await remote.close();
  });
});

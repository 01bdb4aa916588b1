import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Memory } from '../../src/model/memory.js';
import { startHarness, type Harness } from './server-harness.js';

// Every endpoint, driven over real HTTP with real keys: tenant B never reaches tenant A's
// memories, collection-limited keys stay in their collections, read-only keys never write.
let h: Harness;
const k = { a: '', b: '', aRead: '', aWork: '', aWorkHome: '', revoked: '' };

const A_TEXTS = {
  work: 'Quarterly budget review with the finance team on Thursday',
  home: 'The garage door code is 4711',
  none: 'Alice is allergic to hazelnuts',
};

async function snapshotA(): Promise<Memory[]> {
  const page = await h.engram.list({ scope: { tenant: 'tenant-a' }, limit: 100, statuses: ['activated', 'archived', 'deleted'] });
  return page.items.map(({ usage: _usage, ...rest }) => rest as Memory);
}

beforeAll(async () => {
  h = await startHarness();
  k.a = h.key({ tenant: 'tenant-a' });
  k.b = h.key({ tenant: 'tenant-b' });
  k.aRead = h.key({ tenant: 'tenant-a', access: 'read' });
  k.aWork = h.key({ tenant: 'tenant-a', collections: ['work'] });
  k.aWorkHome = h.key({ tenant: 'tenant-a', collections: ['work', 'home'], access: 'read' });
  const revoked = h.keys.create({ tenant: 'tenant-a' });
  h.keys.revoke(revoked.info.id);
  k.revoked = revoked.key;
  await h.engram.add({ id: 'a-work', text: A_TEXTS.work }, { scope: { tenant: 'tenant-a', collection: 'work' } });
  await h.engram.add({ id: 'a-home', text: A_TEXTS.home }, { scope: { tenant: 'tenant-a', collection: 'home' } });
  await h.engram.add({ id: 'a-none', text: A_TEXTS.none, tags: ['health'] }, { scope: { tenant: 'tenant-a', user: 'alice' } });
  await h.engram.add({ id: 'b-own', text: 'Bob likes budget travel' }, { scope: { tenant: 'tenant-b' } });
});
afterAll(async () => h?.close());

const noATextIn = (value: unknown) => {
  const text = JSON.stringify(value);
  for (const t of Object.values(A_TEXTS)) expect(text).not.toContain(t);
  for (const id of ['a-work', 'a-home', 'a-none']) expect(text).not.toContain(`"${id}"`);
};

describe('tenant B against tenant A', () => {
  it('cannot get A memories by id (404, same as missing), nor by naming tenant A (403)', async () => {
    for (const id of ['a-work', 'a-home', 'a-none']) {
      const r = await h.request('GET', `/v1/memories/${id}`, { key: k.b });
      expect(r.status).toBe(404);
      expect(r.json.error?.code).toBe('NOT_FOUND');
      expect(r.text).not.toContain(A_TEXTS.work);
      expect(r.text).not.toContain(A_TEXTS.home);
      expect(r.text).not.toContain(A_TEXTS.none);
    }
    const named = await h.request('GET', '/v1/memories/a-work?tenant=tenant-a', { key: k.b });
    expect(named.status).toBe(403);
    expect(named.json.error?.code).toBe('FORBIDDEN');
  });

  it('cannot list or count A memories', async () => {
    const list = await h.request<{ items: Memory[] }>('GET', '/v1/memories?limit=100&statuses=activated,archived,deleted', { key: k.b });
    expect(list.status).toBe(200);
    expect(list.json.items.map((m) => m.id)).toEqual(['b-own']);
    noATextIn(list.json);
    const stats = await h.request<{ total: number }>('GET', '/v1/stats', { key: k.b });
    expect(stats.json.total).toBe(1);
    for (const path of ['/v1/memories?tenant=tenant-a', '/v1/stats?tenant=tenant-a', '/v1/memories?ids=a-work', '/v1/stats?ids=a-work']) {
      const r = await h.request<{ items?: Memory[]; total?: number }>('GET', path, { key: k.b });
      if (r.status === 200) {
        expect(r.json.items ?? []).toEqual([]);
        expect(r.json.total ?? 0).toBe(0);
      } else expect(r.status).toBe(403);
    }
  });

  it('cannot recall, search or inject A memories', async () => {
    for (const path of ['/v1/recall', '/v1/search']) {
      for (const query of Object.values(A_TEXTS)) {
        const r = await h.request<{ hits: Array<{ memory: Memory }>; cut?: Array<{ memory: Memory }> }>('POST', path, {
          key: k.b,
          body: path === '/v1/recall' ? { query, threshold: -1, limit: 100 } : { query, threshold: -1, topK: 100 },
        });
        expect(r.status, r.text).toBe(200);
        expect([...r.json.hits, ...(r.json.cut ?? [])].map((x) => x.memory.id)).toEqual(['b-own']);
        noATextIn([r.json.hits, r.json.cut]);
        const forged = await h.request('POST', path, { key: k.b, body: { query, scope: { tenant: 'tenant-a' } } });
        expect(forged.status).toBe(403);
      }
    }
    const inject = await h.request<{ injected: boolean; block: string | null; hits: Array<{ id: string }>; request: { messages: Array<{ content: string }> } }>(
      'POST',
      '/v1/inject',
      {
        key: k.b,
        body: { provider: 'openai-chat', request: { model: 'x', messages: [{ role: 'user', content: A_TEXTS.work }] }, threshold: -1 },
      },
    );
    expect(inject.status).toBe(200);
    expect(inject.json.injected).toBe(true);
    expect(inject.json.hits.map((x) => x.id)).toEqual(['b-own']);
    expect(inject.json.block).toContain('Bob likes budget travel');
    noATextIn([inject.json.block, inject.json.request.messages.slice(0, -1)]);
  });

  it('cannot update or delete A memories, and A data is unchanged', async () => {
    const before = await snapshotA();
    const patch = await h.request('PATCH', '/v1/memories/a-work', { key: k.b, body: { patch: { text: 'pwned' } } });
    expect(patch.status).toBe(404);
    const forged = await h.request('PATCH', '/v1/memories/a-work', { key: k.b, body: { scope: { tenant: 'tenant-a' }, patch: { text: 'pwned' } } });
    expect(forged.status).toBe(403);
    const del = await h.request<{ deleted: boolean }>('DELETE', '/v1/memories/a-home', { key: k.b });
    expect(del.json).toEqual({ deleted: false });
    const forgedDel = await h.request('DELETE', '/v1/memories/a-home?tenant=tenant-a', { key: k.b });
    expect(forgedDel.status).toBe(403);
    expect(await snapshotA()).toEqual(before);
  });

  it('cannot write into A, and reusing an A id creates a B memory without touching A', async () => {
    const before = await snapshotA();
    const add = await h.request('POST', '/v1/memories', { key: k.b, body: { scope: { tenant: 'tenant-a' }, memory: { text: 'planted' } } });
    expect(add.status).toBe(403);
    const batch = await h.request('POST', '/v1/memories/batch', { key: k.b, body: { scope: { tenant: 'tenant-a' }, memories: [{ text: 'planted' }] } });
    expect(batch.status).toBe(403);
    const same = await h.request<{ memory: Memory }>('POST', '/v1/memories', { key: k.b, body: { memory: { id: 'a-work', text: 'B own note' } } });
    expect(same.status).toBe(201);
    expect(same.json.memory.scope.tenant).toBe('tenant-b');
    expect(await snapshotA()).toEqual(before);
    await h.request('DELETE', '/v1/memories/a-work', { key: k.b });
    expect((await h.engram.get('a-work', { scope: { tenant: 'tenant-a' } }))?.text).toBe(A_TEXTS.work);
  });

  it('cannot reach A through MCP tools either', async () => {
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await h.request<{ result?: { content: Array<{ text: string }>; isError?: boolean } }>('POST', '/mcp', {
        key: k.b,
        headers: { accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      });
      expect(r.status).toBe(200);
      return r.json.result;
    };
    const searched = await call('search_memories', { query: A_TEXTS.home, threshold: -1, topK: 50 });
    expect(searched?.isError).not.toBe(true);
    noATextIn(searched);
    noATextIn(await call('list_memories', { limit: 100 }));
    expect((await call('search_memories', { query: 'x', tenant: 'tenant-a' }))?.isError).toBe(true);
    expect((await call('delete_memory', { id: 'a-none' }))?.content[0]?.text).toBe('{"deleted":false}');
    expect((await call('add_memory', { text: 'planted', tenant: 'tenant-a' }))?.isError).toBe(true);
    expect(await h.engram.get('a-none', { scope: { tenant: 'tenant-a' } })).not.toBeNull();
  });
});

describe('collection-limited keys', () => {
  it('read only their collection through list, stats, get, recall, search and inject', async () => {
    const list = await h.request<{ items: Memory[] }>('GET', '/v1/memories', { key: k.aWork });
    expect(list.json.items.map((m) => m.id)).toEqual(['a-work']);
    expect((await h.request<{ total: number }>('GET', '/v1/stats', { key: k.aWork })).json.total).toBe(1);
    expect((await h.request('GET', '/v1/memories?collection=home', { key: k.aWork })).status).toBe(403);
    expect((await h.request('GET', '/v1/stats?collection=home', { key: k.aWork })).status).toBe(403);
    expect((await h.request('GET', '/v1/memories/a-work', { key: k.aWork })).status).toBe(200);
    expect((await h.request('GET', '/v1/memories/a-home', { key: k.aWork })).status).toBe(404);
    expect((await h.request('GET', '/v1/memories/a-none', { key: k.aWork })).status).toBe(404);
    for (const path of ['/v1/recall', '/v1/search']) {
      const body = path === '/v1/recall' ? { query: A_TEXTS.home, threshold: -1, limit: 10 } : { query: A_TEXTS.home, threshold: -1, topK: 10 };
      const r = await h.request<{ hits: Array<{ memory: Memory }> }>('POST', path, { key: k.aWork, body });
      expect(r.json.hits.map((x) => x.memory.id)).toEqual(['a-work']);
      expect((await h.request('POST', path, { key: k.aWork, body: { query: 'x', scope: { collection: 'home' } } })).status).toBe(403);
    }
    const inject = await h.request<{ block: string | null }>('POST', '/v1/inject', {
      key: k.aWork,
      body: { provider: 'anthropic-messages', request: { messages: [{ role: 'user', content: A_TEXTS.home }] }, threshold: -1 },
    });
    expect(inject.json.block ?? '').not.toContain(A_TEXTS.home);
  });

  it('write only into their collection', async () => {
    const add = await h.request<{ memory: Memory }>('POST', '/v1/memories', { key: k.aWork, body: { memory: { text: 'standup at nine' } } });
    expect(add.status).toBe(201);
    expect(add.json.memory.scope.collection).toBe('work');
    expect((await h.request('POST', '/v1/memories', { key: k.aWork, body: { scope: { collection: 'home' }, memory: { text: 'x' } } })).status).toBe(403);
    expect((await h.request('POST', '/v1/memories/batch', { key: k.aWork, body: { scope: { collection: 'home' }, memories: [{ text: 'x' }] } })).status).toBe(403);
    expect((await h.request('PATCH', '/v1/memories/a-home', { key: k.aWork, body: { patch: { text: 'changed' } } })).status).toBe(404);
    expect((await h.request<{ deleted: boolean }>('DELETE', '/v1/memories/a-home', { key: k.aWork })).json).toEqual({ deleted: false });
    expect((await h.engram.get('a-home', { scope: { tenant: 'tenant-a' } }))?.text).toBe(A_TEXTS.home);
    expect((await h.request('DELETE', `/v1/memories/${add.json.memory.id}`, { key: k.aWork })).json).toEqual({ deleted: true });
  });

  it('search over several collections needs every one allowed by the key', async () => {
    const denied = await h.request('POST', '/v1/search', { key: k.aWork, body: { query: 'garage code', collections: ['work', 'home'] } });
    expect(denied.status).toBe(403);
    const both = await h.request<{ hits: Array<{ memory: Memory }>; collections: { searched: string[]; denied: string[] } }>('POST', '/v1/search', {
      key: k.aWorkHome,
      body: { query: 'garage door code budget review', collections: ['work', 'home'], threshold: -1 },
    });
    expect(both.status, both.text).toBe(200);
    expect(both.json.hits.map((x) => x.memory.id).sort()).toEqual(['a-home', 'a-work']);
    expect(both.json.collections.denied).toEqual([]);
  });

  it('a key with several collections must name one', async () => {
    const r = await h.request('GET', '/v1/memories', { key: k.aWorkHome });
    expect(r.status).toBe(403);
    const home = await h.request<{ items: Memory[] }>('GET', '/v1/memories?collection=home', { key: k.aWorkHome });
    expect(home.json.items.map((m) => m.id)).toEqual(['a-home']);
  });
});

describe('read-only keys and authentication', () => {
  it('read-only keys can read but never write', async () => {
    const before = await snapshotA();
    expect((await h.request('GET', '/v1/memories', { key: k.aRead })).status).toBe(200);
    expect((await h.request('POST', '/v1/recall', { key: k.aRead, body: { query: 'budget' } })).status).toBe(200);
    const writes = [
      h.request('POST', '/v1/memories', { key: k.aRead, body: { memory: { text: 'x' } } }),
      h.request('POST', '/v1/memories/batch', { key: k.aRead, body: { memories: [{ text: 'x' }] } }),
      h.request('PATCH', '/v1/memories/a-none', { key: k.aRead, body: { patch: { text: 'x' } } }),
      h.request('DELETE', '/v1/memories/a-none', { key: k.aRead }),
      h.request('DELETE', '/v1/memories/a-work', { key: k.aWorkHome }),
    ];
    for (const r of await Promise.all(writes)) {
      expect(r.status).toBe(403);
      expect(r.json.error?.code).toBe('FORBIDDEN');
    }
    expect(await snapshotA()).toEqual(before);
  });

  it('missing, malformed, unknown and revoked keys get 401 on every endpoint', async () => {
    const forged = `egk_${'k000000000000'}_${'A'.repeat(43)}`;
    const keyVariants: Array<Record<string, string>> = [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: `Bearer ${forged}` },
      { authorization: `Bearer ${k.a.slice(0, -2)}xx` },
      { authorization: `Bearer ${k.revoked}` },
    ];
    const endpoints: Array<[string, string, unknown]> = [
      ['GET', '/v1/memories', undefined],
      ['GET', '/v1/memories/a-none', undefined],
      ['GET', '/v1/stats', undefined],
      ['POST', '/v1/memories', { memory: { text: 'x' } }],
      ['POST', '/v1/memories/batch', { memories: [{ text: 'x' }] }],
      ['PATCH', '/v1/memories/a-none', { patch: { text: 'x' } }],
      ['DELETE', '/v1/memories/a-none', undefined],
      ['POST', '/v1/recall', { query: 'x' }],
      ['POST', '/v1/search', { query: 'x' }],
      ['POST', '/v1/inject', { provider: 'openai-chat', request: {} }],
      ['POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    ];
    for (const headers of keyVariants) {
      for (const [method, path, body] of endpoints) {
        const r = await h.request(method, path, { headers, body });
        expect(r.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(r.json.error?.code).toBe('UNAUTHORIZED');
      }
    }
    expect((await h.engram.get('a-none', { scope: { tenant: 'tenant-a' } }))?.text).toBe(A_TEXTS.none);
  });
});

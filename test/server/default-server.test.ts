import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { createKey, listKeys, revokeKey } from '../../src/auth/key-admin.js';
import { RemoteEngram } from '../../src/client/remote-engram.js';
import { curlExample } from '../../src/server/curl-example.js';
import { startServer } from '../../src/server/start-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'engram-default-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('starts on the embedded defaults (SQLite in the data dir + local embedder) and serves a client', async () => {
  const created = createKey({ dataDir, tenant: 'acme', name: 'laptop' });
  expect(created.key).toMatch(/^egk_k[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
  const server = await startServer({ dataDir, port: 0 });
  try {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = new RemoteEngram({ url: server.url, apiKey: created.key });
    await client.addMany(
      [
        { text: 'My favourite drink is green tea' },
        { text: 'I am training for the Berlin marathon' },
        { text: 'The cat is called Whiskers' },
      ],
      { scope: { tenant: 'acme', user: 'me' } },
    );
    const result = await client.recall('what do I like to drink?', { scope: { tenant: 'acme', user: 'me' }, limit: 1, threshold: 0 });
    expect(result.hits[0]?.memory.text).toBe('My favourite drink is green tea');
    expect(result.hits[0]?.memory.embedding?.model).toBe('use-lite');

    // The example the CLI prints works as printed (with the key in the environment).
    // (Asynchronously: the server runs in this process.)
    const { stdout: output } = await promisify(execFile)('sh', ['-c', curlExample(server.url)], {
      env: { ...process.env, ENGRAM_API_KEY: created.key },
      timeout: 30_000,
    });
    expect(output).toContain('"text":"Alice prefers green tea"');
    expect(output).toMatch(/"hits":\[\{"memory":\{"id":"[^"]+","text":"Alice prefers green tea"/);

    const listed = listKeys({ dataDir });
    expect(listed.map((k) => ({ id: k.id, tenant: k.tenant, name: k.name }))).toEqual([{ id: created.info.id, tenant: 'acme', name: 'laptop' }]);
    expect(JSON.stringify(listed)).not.toContain(created.key.slice(-43));
    expect(revokeKey({ dataDir, id: created.info.id })).toBe(true);
    expect(revokeKey({ dataDir, id: created.info.id })).toBe(false);
    await expect(client.list({ scope: { tenant: 'acme' } })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    expect(listKeys({ dataDir })).toEqual([]);
    expect(listKeys({ dataDir, includeRevoked: true })[0]?.revokedAt).toMatch(/^\d{4}-/);
  } finally {
    await server.close();
  }
});

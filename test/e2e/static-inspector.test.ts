import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openKeyStore } from '../../src/auth/key-store.js';
import { Engram } from '../../src/engram.js';
import { createApp } from '../../src/server/create-app.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

const dirs: string[] = [];
const closers: Array<() => Promise<void> | void> = [];

afterAll(async () => {
  for (const close of closers) await close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function appWith(root: string, options: { inspector?: boolean; search?: boolean } = {}) {
  const engram = await Engram.open({ store: createSqliteStore({ path: ':memory:' }), embedder: new HashedEmbedder() });
  const keys = openKeyStore({ path: ':memory:' });
  closers.push(
    () => engram.close(),
    () => keys.close(),
  );
  const app = createApp({
    api: engram,
    keys,
    inspector: options.inspector === false ? false : { root },
    search: options.search === false ? false : undefined,
  });
  return { app, key: keys.create({ tenant: 't1', collections: ['c1'] }).key };
}

function fakeBuild(): string {
  const root = mkdtempSync(join(tmpdir(), 'engram-web-dist-'));
  dirs.push(root);
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>inspector</title>');
  writeFileSync(join(root, 'assets', 'index-abc.js'), 'export {};');
  writeFileSync(join(root, '..', `secret-${root.split('/').pop()}.txt`), 'outside');
  dirs.push(join(root, '..', `secret-${root.split('/').pop()}.txt`));
  return root;
}

describe('serving the built inspector', () => {
  it('serves the page with a strict CSP, hashed assets cached, the HTML not', async () => {
    const { app } = await appWith(fakeBuild());
    const page = await app.request('/inspector/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('<title>inspector</title>');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const asset = await app.request('/inspector/assets/index-abc.js');
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    const bare = await app.request('/inspector');
    expect(bare.status).toBe(301);
    expect(bare.headers.get('location')).toBe('/inspector/');
  });

  it('never serves files outside the build directory', async () => {
    const root = fakeBuild();
    const { app } = await appWith(root);
    const name = `secret-${root.split('/').pop()}.txt`;
    for (const path of [
      `/inspector/../${name}`,
      `/inspector/%2e%2e/${name}`,
      `/inspector/..%2f${name}`,
      `/inspector/assets/%2e%2e%2f%2e%2e%2f${name}`,
      '/inspector/%00',
      '/inspector/%E0%A4%A',
    ]) {
      const response = await app.request(path);
      expect(response.status, path).not.toBe(200);
      expect(await response.text(), path).not.toContain('outside');
    }
    expect((await app.request('/inspector/assets/missing.js')).status).toBe(404);
  });

  it('says how to build the page when web/dist is missing', async () => {
    const { app } = await appWith(join(tmpdir(), 'engram-no-such-build-dir'));
    const response = await app.request('/inspector/');
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build:web');
  });

  it('whoami needs a key and reports its tenant, rights and the search rerankers; it is not in the OpenAPI document', async () => {
    const { app, key } = await appWith(fakeBuild());
    const auth = { headers: { authorization: `Bearer ${key}` } };
    expect((await app.request('/v1/inspector/whoami')).status).toBe(401);
    const who = await app.request('/v1/inspector/whoami', auth);
    expect(await who.json()).toEqual({
      tenant: 't1',
      keyId: expect.stringMatching(/^k/),
      access: 'read-write',
      collections: ['c1'],
      search: true,
      rerankers: ['cosine-local', 'noop'],
    });
    const doc = (await (await app.request('/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).some((p) => p.includes('inspector'))).toBe(false);
    const noSearch = await appWith(fakeBuild(), { search: false });
    const who2 = await noSearch.app.request('/v1/inspector/whoami', {
      headers: { authorization: `Bearer ${noSearch.key}` },
    });
    expect(await who2.json()).toMatchObject({ search: false, rerankers: [] });
  });

  it('inspector: false serves neither the page nor whoami', async () => {
    const off = await appWith(fakeBuild(), { inspector: false });
    expect((await off.app.request('/inspector/')).status).toBe(404);
    expect(
      (await off.app.request('/v1/inspector/whoami', { headers: { authorization: `Bearer ${off.key}` } })).status,
    ).toBe(404);
  });
});

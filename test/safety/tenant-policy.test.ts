/**
 * A tenant's write-safety policy: set with `engram safety set` into the server's data directory,
 * applied by the running server to that tenant's next write (no restart), over the instance's
 * policy; cleared with `engram safety clear`; a bad setting is refused with INVALID_INPUT.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { createKey } from '../../src/auth/key-admin.js';
import { main } from '../../src/cli/main.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { openTenantSettings, TENANTS_FILE } from '../../src/tenant/tenant-settings.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

const EMAIL = 'maria.gonzalez@example.org';
let dataDir: string;
let server: RunningServer;
let acme: string;
let other: string;

/** Runs the CLI in-process; returns exit code, stdout lines and stderr lines. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: unknown) => void out.push(String(line)));
  try {
    const code = await main(['node', 'engram', ...args, '--data-dir', dataDir], { error: (t) => err.push(t) });
    return { code, out: out.join('\n'), err };
  } finally {
    log.mockRestore();
  }
}

async function addText(
  key: string,
  text: string,
): Promise<{ status: number; body: { memory?: { text: string }; error?: { code: string } } }> {
  const response = await fetch(`${server.url}/v1/memories`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ memory: { text } }),
  });
  return { status: response.status, body: (await response.json()) as never };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'engram-tenant-policy-'));
  acme = createKey({ dataDir, tenant: 'acme' }).key;
  other = createKey({ dataDir, tenant: 'other' }).key;
  // The server's own Engram over its data directory: the embedded default, as `engram serve` opens it.
  server = await startServer({
    dataDir,
    port: 0,
    defaults: { embedder: new HashedEmbedder(), engram: { safety: { policy: { actions: { phone: 'mask' } } } } },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('tenant safety settings', () => {
  it('a data directory without settings gets no settings file and the instance policy', async () => {
    const { body } = await addText(acme, `mail ${EMAIL}, call +44 20 7946 0958`);
    expect(body.memory?.text).toBe(`mail ${EMAIL}, call [phone +44 •••• 0958]`);
    expect(existsSync(join(dataDir, TENANTS_FILE))).toBe(false);
    const shown = await cli('--tenant', 'acme', '--json', 'safety', 'show');
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out)).toMatchObject({
      tenant: 'acme',
      setting: null,
      effective: { actions: { email: 'keep' } },
    });
  });

  it('set: the running server applies it to the tenant’s next write, over the instance policy', async () => {
    const set = await cli('--tenant', 'acme', 'safety', 'set', '{"actions":{"email":"mask"}}');
    expect(set.code).toBe(0);
    expect(set.out).toContain('email mask');
    expect((await addText(acme, `mail ${EMAIL}`)).body.memory?.text).toBe('mail [email •••@example.org]');
    expect((await addText(other, `mail ${EMAIL}`)).body.memory?.text).toBe(`mail ${EMAIL}`);
  });

  it('a tenant may reject: the write is refused with 422 and the stable code', async () => {
    expect((await cli('--tenant', 'other', 'safety', 'set', '{"actions":{"email":"reject"}}')).code).toBe(0);
    const refused = await addText(other, `mail ${EMAIL}`);
    expect(refused.status).toBe(422);
    expect(refused.body.error?.code).toBe('SENSITIVE_DATA_REJECTED');
    expect(JSON.stringify(refused.body)).not.toContain(EMAIL);
  });

  it('show: the policy the tenant gets over the instance policy of ENGRAM_SAFETY', async () => {
    process.env['ENGRAM_SAFETY'] = '{"actions":{"phone":"mask"}}';
    try {
      const shown = await cli('--tenant', 'acme', '--json', 'safety', 'show');
      expect(JSON.parse(shown.out)).toMatchObject({
        setting: { actions: { email: 'mask' } },
        effective: { actions: { email: 'mask', phone: 'mask', card: 'mask' } },
      });
      process.env['ENGRAM_SAFETY'] = '{not json';
      expect((await cli('--tenant', 'acme', 'safety', 'show')).err[0]).toMatch(/^error CONFIG_ERROR: ENGRAM_SAFETY/);
    } finally {
      delete process.env['ENGRAM_SAFETY'];
    }
  });

  it('list and clear', async () => {
    const listed = await cli('--json', 'safety', 'list');
    expect((JSON.parse(listed.out) as Array<{ tenant: string }>).map((r) => r.tenant)).toEqual(['acme', 'other']);
    expect((await cli('--tenant', 'other', 'safety', 'clear')).out).toBe('tenant other: setting removed');
    expect((await addText(other, `mail ${EMAIL}`)).body.memory?.text).toBe(`mail ${EMAIL}`);
    expect((await cli('--tenant', 'other', 'safety', 'clear')).out).toBe('tenant other had no setting');
  });

  it('a bad setting is refused with INVALID_INPUT naming the field, and nothing is stored', async () => {
    const bad = await cli('--tenant', 'acme', 'safety', 'set', '{"actions":{"email":"shred"}}');
    expect(bad.code).toBe(2);
    expect(bad.err[0]).toMatch(/^error INVALID_INPUT: safety\.actions\.email/);
    const notJson = await cli('--tenant', 'acme', 'safety', 'set', '{actions');
    expect(notJson.err[0]?.startsWith('error INVALID_INPUT')).toBe(true);
    const settings = openTenantSettings({ path: join(dataDir, TENANTS_FILE) });
    expect(settings.safetyOf('acme')).toEqual({ actions: { email: 'mask' } });
    settings.close();
  });
});

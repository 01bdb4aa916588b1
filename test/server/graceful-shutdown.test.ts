import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createKey } from '../../src/auth/key-admin.js';
import { Engram } from '../../src/engram.js';
import { DATABASE_FILE } from '../../src/open-default-engram.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

const dataDir = mkdtempSync(join(tmpdir(), 'engram-shutdown-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it('SIGTERM mid-load: in-flight requests finish, every acknowledged write is in the database, exit 0', async () => {
  const { key } = createKey({ dataDir, tenant: 'acme' });
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./fixtures/server-process.ts', import.meta.url))], {
    env: { ...process.env, ENGRAM_TEST_DATA_DIR: dataDir, ENGRAM_TEST_EMBED_DELAY_MS: '15' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const firstLine = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error(`server exited early: ${stderr}`)));
  });
  const { url } = JSON.parse(firstLine) as { url: string };

  const acked: Array<{ ids: string[]; at: number }> = [];
  let sigtermAt = Number.POSITIVE_INFINITY;
  let refused = 0;
  let serverErrors = 0;
  let stop = false;
  const worker = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const batch = i % 5 === 4;
      const ids = batch ? [0, 1, 2].map((j) => `w${w}-${i}-${j}`) : [`w${w}-${i}`];
      const body = batch
        ? { memories: ids.map((id) => ({ id, text: `batch memory ${id} about tea and trains` })) }
        : { memory: { id: ids[0], text: `memory ${ids[0]} about tea and trains` } };
      try {
        const response = await fetch(`${url}/v1/memories${batch ? '/batch' : ''}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        await response.text();
        if (response.status === 201) acked.push({ ids, at: performance.now() });
        else if (response.status >= 500) serverErrors++;
      } catch {
        refused++;
        if (performance.now() > sigtermAt) return;
      }
    }
  };
  const workers = Array.from({ length: 16 }, (_, w) => worker(w));
  while (acked.length < 60) await new Promise((resolve) => setTimeout(resolve, 5));
  sigtermAt = performance.now();
  child.kill('SIGTERM');
  const code = await exited;
  const shutdownMs = performance.now() - sigtermAt;
  stop = true;
  await Promise.all(workers);

  expect(code, stderr).toBe(0);
  expect(shutdownMs).toBeLessThan(5_000);
  expect(serverErrors).toBe(0);
  expect(refused).toBeGreaterThan(0);
  // Requests already in flight when SIGTERM arrived were answered, not dropped.
  expect(acked.filter((a) => a.at > sigtermAt).length).toBeGreaterThan(0);

  const engram = await Engram.open({ store: createSqliteStore({ path: join(dataDir, DATABASE_FILE) }), embedder: new HashedEmbedder() });
  const ids = acked.flatMap((a) => a.ids);
  const missing: string[] = [];
  for (const id of ids) if (!(await engram.get(id, { scope: { tenant: 'acme' } }))) missing.push(id);
  const total = (await engram.stats({ scope: { tenant: 'acme' } })).total;
  await engram.close();
  expect(missing).toEqual([]);
  expect(total).toBeGreaterThanOrEqual(ids.length);
});

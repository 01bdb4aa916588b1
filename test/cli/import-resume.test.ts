import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';

// One process (node --import tsx), so a SIGKILL kills the importer itself, not a wrapper.
const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');
const TOTAL = 100;
const BATCH = 20;

let dir: string;
let server: LocalHttpServer;
/** While set, embedding requests hang and the first one calls it (the import is stuck mid-way). */
let stall: (() => void) | null = null;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function engram(args: string[], onSpawn?: (kill: () => void) => void): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        BIN,
        '--store',
        join(dir, 'import.db'),
        '--embedder',
        'http:model-a',
        '--user',
        'u1',
        ...args,
      ],
      { env: { ...process.env, ENGRAM_EMBEDDER_BASE_URL: server.url }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    onSpawn?.(() => child.kill('SIGKILL'));
  });
}

async function storedCount(): Promise<number> {
  const stats = await engram(['--json', 'stats']);
  expect(stats.code).toBe(0);
  return (JSON.parse(stats.stdout) as { total: number }).total;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-import-resume-'));
  const embedder = new HashedEmbedder({ dim: 32, model: 'model-a' });
  let requests = 0;
  server = await startLocalServer(async (request) => {
    requests += 1;
    if (stall !== null && requests > 3) {
      stall();
      stall = null;
      await new Promise(() => undefined); // never answers: the importer waits until it is killed
    }
    const body = request.body as { input: string[] };
    const vectors = await embedder.embed(body.input);
    return {
      json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) },
    };
  });
  const lines = Array.from({ length: TOTAL }, (_, i) =>
    JSON.stringify({ id: `mem-${i}`, text: `memory number ${i} about topic ${i % 7}` }),
  );
  await writeFile(join(dir, 'memories.jsonl'), lines.join('\n') + '\n');
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('engram import, killed half-way and resumed', { timeout: 120_000 }, () => {
  it('prints progress lines off a terminal, resumes with --resume after a SIGKILL, and stores each line once', async () => {
    const file = join(dir, 'memories.jsonl');
    const stuck = new Promise<void>((resolve) => (stall = resolve));
    const killed = await engram(['import', file, '--batch', String(BATCH)], (kill) => void stuck.then(kill));
    expect(killed.signal).toBe('SIGKILL');
    // stderr is a pipe here: progress comes as lines, the first one right after the first batch.
    expect(killed.stderr).toMatch(new RegExp(`^import ${BATCH}/${TOTAL} \\(20\\.0%\\) \\d+/s$`, 'm'));
    const partial = await storedCount();
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(TOTAL);
    expect(partial % BATCH).toBe(0); // batches are all-or-nothing

    // Without --resume the first batch holds stored ids: it fails, says how to resume, stores nothing.
    const plain = await engram(['import', file, '--batch', String(BATCH)]);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/^error CONFLICT: .*run it again with --resume/m);
    expect(await storedCount()).toBe(partial);

    const resumed = await engram(['--json', 'import', file, '--batch', String(BATCH), '--resume']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ imported: TOTAL - partial, skipped: partial, format: 'jsonl' });
    expect(resumed.stderr).toMatch(new RegExp(`^import ${TOTAL}/${TOTAL} \\(100\\.0%\\) \\d+/s$`, 'm'));
    expect(await storedCount()).toBe(TOTAL);

    const again = await engram(['import', file, '--resume', '--quiet']);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      new RegExp(`imported 0 memories \\(jsonl\\) in [\\d.]+ s, skipped ${TOTAL} already stored`),
    );
    expect(again.stderr).toBe('');
    expect(await storedCount()).toBe(TOTAL);
  });

  it('refuses --resume for a file with a line without id, before writing', async () => {
    const file = join(dir, 'no-ids.jsonl');
    await writeFile(file, '{"id":"x-1","text":"has an id"}\n{"text":"has none"}\n');
    const run = await engram(['--user', 'u2', 'import', file, '--resume']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error INVALID_INPUT: .*line 2\.id: resuming needs an id on every line/m);
  });
});

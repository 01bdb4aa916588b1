/**
 * `engram restore` of a tampered export (the probe): a vector of one value more or less
 * than the scope's dimension, one of all zeros, one of another model — the command exits 2 with
 * the code, restores nothing of the file, and the scope still recalls and takes writes with its
 * embedder. The untouched export then restores whole.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransferRecord } from '../../src/store/transfer.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';

const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');
const DIM = 32;

let dir: string;
let server: LocalHttpServer;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function engram(store: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', BIN, '--store', join(dir, store), '--embedder', 'http:model-a', '--user', 'u1', ...args],
      { env: { ...process.env, ENGRAM_EMBEDDER_BASE_URL: server.url }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const base64 = (values: number[]): string => {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => bytes.writeFloatLE(v, i * 4));
  return bytes.toString('base64');
};
const values = (n: number): number[] => Array.from({ length: n }, (_, i) => Math.sin(i + 1));

/** The last record of the export spoiled, with the code `engram restore` must answer. */
const TAMPERED: Array<[string, string, (r: TransferRecord) => object]> = [
  [
    '511-style: one value fewer, declared',
    'MODEL_MISMATCH',
    (r) => ({ ...r, embedding: { model: 'model-a', dim: DIM - 1 }, vector: base64(values(DIM - 1)) }),
  ],
  [
    '513-style: one value more, declared',
    'MODEL_MISMATCH',
    (r) => ({ ...r, embedding: { model: 'model-a', dim: DIM + 1 }, vector: base64(values(DIM + 1)) }),
  ],
  ['one value fewer than declared', 'DIMENSION_MISMATCH', (r) => ({ ...r, vector: base64(values(DIM - 1)) })],
  ['all zeros', 'INVALID_VECTOR', (r) => ({ ...r, vector: base64(new Array<number>(DIM).fill(0)) })],
  ['another model', 'MODEL_MISMATCH', (r) => ({ ...r, embedding: { model: 'model-b', dim: DIM } })],
];

async function total(store: string): Promise<number> {
  const stats = await engram(store, ['--json', 'stats']);
  expect(stats.code, stats.stderr).toBe(0);
  return (JSON.parse(stats.stdout) as { total: number }).total;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-restore-check-'));
  const embedder = new HashedEmbedder({ dim: DIM, model: 'model-a' });
  server = await startLocalServer(async (request) => {
    const vectors = await embedder.embed((request.body as { input: string[] }).input);
    return {
      json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) },
    };
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('engram restore of a tampered export', { timeout: 180_000 }, () => {
  it('refuses each file whole with its code, and the scope keeps recalling and taking writes', async () => {
    for (const text of ['Alice drinks green tea', 'Alice owns a red bicycle', 'Alice lives in Lyon'])
      expect((await engram('source.db', ['add', text])).code).toBe(0);
    const exported = join(dir, 'export.jsonl');
    expect((await engram('source.db', ['export', '--out', exported])).code).toBe(0);
    const lines = (await readFile(exported, 'utf8')).trim().split('\n');
    const records = lines.map((l) => JSON.parse(l) as TransferRecord);
    expect(records.filter((r) => r.format === 'engram.memory/v1')).toHaveLength(3);
    expect((await engram('target.db', ['add', 'Bob prefers black coffee'])).code).toBe(0);

    for (const [name, code, spoil] of TAMPERED) {
      const file = join(dir, `tampered-${code}-${TAMPERED.findIndex((t) => t[0] === name)}.jsonl`);
      const out = records.map((r, i) => JSON.stringify(i === records.length - 1 ? spoil(r) : r));
      await writeFile(file, out.join('\n') + '\n');
      const run = await engram('target.db', ['restore', file, '--batch', '1', '--quiet']);
      expect(run.code, name).toBe(2);
      expect(run.stderr, name).toMatch(new RegExp(`^error ${code}: .*nothing was restored`, 'm'));
      expect(await total('target.db'), name).toBe(1);
    }
    const recalled = await engram('target.db', ['--json', 'recall', 'coffee', '--threshold', '0']);
    expect(recalled.code, recalled.stderr).toBe(0);
    expect((JSON.parse(recalled.stdout) as { hits: Array<{ memory: { text: string } }> }).hits[0]?.memory.text).toBe(
      'Bob prefers black coffee',
    );
    expect((await engram('target.db', ['add', 'Bob walks to work'])).code).toBe(0);

    const restored = await engram('target.db', ['restore', exported, '--quiet']);
    expect(restored.stdout).toMatch(/restored 3 memories/);
    const tea = await engram('target.db', ['--json', 'recall', 'green tea']);
    expect((JSON.parse(tea.stdout) as { hits: Array<{ memory: { text: string } }> }).hits[0]?.memory.text).toBe(
      'Alice drinks green tea',
    );
    expect(await total('target.db')).toBe(5);
  });

  it('engram import takes precomputed vectors on its lines, checked as every entry point checks them', async () => {
    const embedder = new HashedEmbedder({ dim: DIM, model: 'model-a' });
    // The vector of another text, so the stored one shows it was taken, not embedded by the CLI.
    const [tea, other] = await embedder.embed(['Carol drinks mint tea', 'a kayak on the lake']);
    const good = join(dir, 'with-vectors.jsonl');
    await writeFile(
      good,
      JSON.stringify({ id: 'carol-tea', text: 'Carol drinks mint tea', vector: [...other!] }) + '\n',
    );
    const short = join(dir, 'short-vector.jsonl');
    await writeFile(short, JSON.stringify({ text: 'Carol owns a kayak', vector: [...tea!].slice(1) }) + '\n');
    const refused = await engram('vectors.db', ['import', short, '--quiet']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error DIMENSION_MISMATCH: /m);
    const imported = await engram('vectors.db', ['import', good, '--quiet']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(await total('vectors.db')).toBe(1);
    const exported = join(dir, 'vectors-export.jsonl');
    expect((await engram('vectors.db', ['export', '--out', exported])).code).toBe(0);
    const [line] = (await readFile(exported, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TransferRecord);
    const bytes64 = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
    expect(line?.vector).toBe(bytes64(other!));
    expect(line?.vector).not.toBe(bytes64(tea!));
  });
});

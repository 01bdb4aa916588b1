import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { EvalComparison } from '../../src/eval/compare-evals.js';
import type { EvalReport } from '../../src/eval/run-eval.js';
import type { RecallResult } from '../../src/model/api.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');

let dir: string;
let server: LocalHttpServer;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real CLI in a child process, on a real SQLite file, with a real OpenAI-compatible embedder. */
function engram(
  args: string[],
  store = join(dir, 'eval.db'),
  embedder = store.endsWith('-b.db') ? 'http:model-b' : 'http:model-a',
): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [BIN, '--store', store, '--embedder', embedder, ...args],
      { env: { ...process.env, ENGRAM_EMBEDDER_BASE_URL: server.url }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const MEMORIES = [
  { key: 'peanuts', text: 'User is allergic to peanuts' },
  { key: 'volvo', text: 'User owns a Volvo V60 estate car' },
  { key: 'lisbon', text: 'User lives in Lisbon near the river' },
  { key: 'piano', text: 'User plays piano on Thursday evenings' },
  { key: 'tea', text: 'User drinks green tea every morning' },
];
const CASES = [
  { id: 'c-peanut', query: 'peanuts allergy', expected: ['peanuts'], category: 'health' },
  { id: 'c-car', query: 'which car does the user own, a Volvo?', expected: ['volvo'], category: 'things' },
  { id: 'c-two', query: 'piano and tea', expected: ['piano', 'tea'], category: 'habits' },
  { id: 'c-miss', query: 'zebra quantum', expected: ['lisbon'], category: 'habits' },
  { id: 'c-other-user', query: 'peanuts allergy', expected: ['peanuts'], scope: { user: 'u2' } },
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-eval-'));
  const embedder = new HashedEmbedder({ dim: 32, model: 'model-a' });
  const embedderB = new HashedEmbedder({ dim: 48, model: 'model-b' });
  server = await startLocalServer(async (request) => {
    const body = request.body as { model: string; input: string[] };
    const vectors = await (body.model === 'model-b' ? embedderB : embedder).embed(body.input);
    return {
      json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) },
    };
  });
  await writeFile(join(dir, 'memories.jsonl'), MEMORIES.map((m) => JSON.stringify(m)).join('\n'));
  await writeFile(join(dir, 'cases.jsonl'), CASES.map((c) => JSON.stringify(c)).join('\n'));
  const imported = await engram(['--user', 'u1', 'import', join(dir, 'memories.jsonl')]);
  expect(imported.code).toBe(0);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

/** The 1-based rank of a key in `engram recall --json` at this limit (null when absent). */
async function recallRank(query: string, key: string, limit: number, user = 'u1'): Promise<number | null> {
  const run = await engram(['--user', user, '--json', 'recall', query, '--limit', String(limit), '--threshold', '0']);
  const hits = (JSON.parse(run.stdout) as RecallResult).hits;
  const i = hits.findIndex((h) => h.memory.key === key);
  return i < 0 ? null : i + 1;
}

describe('engram eval', { timeout: 180_000 }, () => {
  it('scores the cases against the store as recall itself ranks them', async () => {
    const run = await engram(['--user', 'u1', '--json', 'eval', join(dir, 'cases.jsonl'), '-k', '1,3']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const { a } = JSON.parse(run.stdout) as { a: EvalReport };
    expect(a.ks).toEqual([1, 3]);
    expect(a.cases.map((c) => c.id)).toEqual(CASES.map((c) => c.id));
    for (const c of a.cases.slice(0, 4)) {
      for (const k of [1, 3]) {
        const ranks = await Promise.all(c.expected.map((e) => recallRank(c.query, e, k)));
        const found = ranks.filter((r) => r !== null).length;
        expect(c.recall[k], `${c.id}@${k}`).toBeCloseTo(found / c.expected.length, 10);
      }
    }
    expect(a.cases[0]).toMatchObject({ reciprocalRank: 1, hit: { 1: 1 } });
    // Another user's scope holds nothing: the case misses, it does not see u1's memories.
    expect(a.cases[4]).toMatchObject({ hit: { 3: 0 }, misses: [{ expected: 'peanuts', rank: null, above: [] }] });
    expect(a.byCategory['habits']?.n).toBe(2);
    expect(a.overall.n).toBe(5);
  });

  it('compares two settings side by side, as text and as JSON', async () => {
    const text = await engram(['--user', 'u1', 'eval', join(dir, 'cases.jsonl'), '--vs', 'profile=seed', '-q']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/5 cases, k = 1, 3, 5, 10/);
    expect(text.stdout).toMatch(/A: recall +B: recall \(profile seed\) +B − A/);
    expect(text.stdout).toMatch(/^MRR +\d\.\d{3} +\d\.\d{3} +[+−]\d\.\d{3}$/m);
    expect(text.stdout).toMatch(/Misses of recall \(profile seed\)/);
    expect(text.stdout).toMatch(/\[c-other-user\] "peanuts allergy"\n {4}expected peanuts \(not ranked\)/);
    const json = await engram([
      '--user',
      'u1',
      '--json',
      'eval',
      join(dir, 'cases.jsonl'),
      '--with',
      'mode=fast',
      '--vs',
      'mode=fast,reranker=cosine-local',
    ]);
    expect(json.stderr).toBe('');
    const cmp = JSON.parse(json.stdout) as EvalComparison;
    expect(cmp.a.ranker).toBe('search fast');
    expect(cmp.b.ranker).toBe('search fast (reranker cosine-local)');
    expect(cmp.recallDelta[10]).toBeCloseTo(
      (cmp.b.overall.recall[10] as number) - (cmp.a.overall.recall[10] as number),
      12,
    );
    expect(cmp.a.cases[0]?.hit[1]).toBe(1);
  });

  it('compares two embedders, each on a store embedded with it', async () => {
    const other = join(dir, 'eval-b.db');
    const imported = await engram(['--user', 'u1', 'import', join(dir, 'memories.jsonl')], other);
    expect(imported.code).toBe(0);
    const run = await engram([
      '--user',
      'u1',
      '--json',
      'eval',
      join(dir, 'cases.jsonl'),
      '--vs',
      `embedder=http:model-b,store=${other}`,
    ]);
    expect(run.stderr).toBe('');
    const cmp = JSON.parse(run.stdout) as EvalComparison;
    expect(cmp.b.ranker).toBe(`recall (embedder http:model-b, store ${other})`);
    expect(cmp.b.cases[0]?.hit[1]).toBe(1);
    // The other embedder against the first store: its vectors are of another model, a clear error.
    const mixed = await engram(['--user', 'u1', 'eval', join(dir, 'cases.jsonl'), '--vs', 'embedder=http:model-b']);
    expect(mixed.code).toBe(2);
    // Progress lines (stderr is not a terminal here) come before the error line.
    expect(mixed.stderr).toMatch(/^error MODEL_MISMATCH/m);
  });

  it('leaves the store as it was: no usage is recorded', async () => {
    const usage = async (): Promise<number[]> => {
      const store = createSqliteStore({ path: join(dir, 'eval.db') });
      try {
        const page = await store.list({ scope: { tenant: 'default', user: 'u1' } }, { limit: 100 });
        return page.items.map((m) => m.usage.count);
      } finally {
        await store.close();
      }
    };
    const before = await usage();
    expect(before).toHaveLength(MEMORIES.length);
    const run = await engram(['--user', 'u1', 'eval', join(dir, 'cases.jsonl'), '-q']);
    expect(run.code).toBe(0);
    expect(await usage()).toEqual(before);
  });

  it('answers a bad cases file, a bad setting and a bad cut-off with INVALID_INPUT', async () => {
    await writeFile(join(dir, 'bad.jsonl'), '{"query": "q", "expected": ["a"]}\n{"query": "q", "expected": []}\n');
    const badFile = await engram(['--user', 'u1', 'eval', join(dir, 'bad.jsonl')]);
    expect(badFile.code).toBe(2);
    expect(badFile.stderr).toMatch(/^error INVALID_INPUT: .*bad\.jsonl:2: expected must be a non-empty list/);
    const missing = await engram(['--user', 'u1', 'eval', join(dir, 'nope.jsonl')]);
    expect(missing.stderr).toMatch(/^error INVALID_INPUT: cannot read cases file/);
    const setting = await engram(['--user', 'u1', 'eval', join(dir, 'cases.jsonl'), '--vs', 'profile=fancy']);
    expect(setting.code).toBe(2);
    expect(setting.stderr).toMatch(
      /^error INVALID_INPUT: setting "profile=fancy": profile must be one of engram, seed/,
    );
    const k = await engram(['--user', 'u1', 'eval', join(dir, 'cases.jsonl'), '-k', '0']);
    expect(k.stderr).toMatch(/^error INVALID_INPUT: -k/);
  });
});

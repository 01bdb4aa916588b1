import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTinyFolder } from './tiny-model-folder.js';
import { WORDPIECE_PIECES, wordPieceTokenizer } from './tiny-tokenizers.js';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');

let dir: string;

function engram(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [BIN, '--store', join(dir, 'cli.db'), '--user', 'u1', ...args],
      { env: { ...process.env, ENGRAM_EMBEDDER: '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const tinyFolder = (hidden: number) =>
  writeTinyFolder(join(dir, 'tiny'), {
    tokenizer: wordPieceTokenizer(),
    vocab: WORDPIECE_PIECES.length + 4,
    hidden,
    sentenceTransformers: { pooling: 'mean', normalize: true },
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-onnx-cli-'));
  await tinyFolder(16);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('engram CLI with --embedder onnx:<path>', { timeout: 180_000 }, () => {
  it('adds and recalls; a changed model dimension is MODEL_MISMATCH until reembed', async () => {
    const model = `onnx:${join(dir, 'tiny')}`;
    for (const text of ['Hello worlds!', 'My dog runs fast', 'I like green tea']) {
      const added = await engram(['--embedder', model, 'add', text]);
      expect(added.stderr).toBe('');
      expect(added.stdout).toMatch(/^added /);
    }
    const stats = await engram(['--embedder', model, '--json', 'stats']);
    expect((JSON.parse(stats.stdout) as { models: unknown[] }).models).toEqual([
      { model: 'onnx:tiny', dim: 16, count: 3 },
    ]);
    const found = await engram(['--json', 'recall', 'green tea', '--threshold', '0'], { ENGRAM_EMBEDDER: model });
    expect(found.stderr).toBe('');
    const hits = (JSON.parse(found.stdout) as { hits: { memory: { text: string } }[] }).hits;
    expect(hits[0]?.memory.text).toBe('I like green tea');

    await tinyFolder(8);
    const mismatch = await engram(['--embedder', model, 'recall', 'green tea']);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/^error MODEL_MISMATCH: .*onnx:tiny \(16 dims\)/);

    const reembed = await engram(['--embedder', model, 'reembed', '--quiet']);
    expect(reembed.stderr).toBe('');
    expect(reembed.stdout).toContain('re-embedded 3 memories');
    const after = await engram(['--embedder', model, '--json', 'stats']);
    expect((JSON.parse(after.stdout) as { models: unknown[] }).models).toEqual([
      { model: 'onnx:tiny', dim: 8, count: 3 },
    ]);
    const again = await engram(['--embedder', model, '--json', 'recall', 'my dog', '--threshold', '0']);
    expect((JSON.parse(again.stdout) as { hits: { memory: { text: string } }[] }).hits[0]?.memory.text).toBe(
      'My dog runs fast',
    );
  });

  it('answers a model path that does not exist with CONFIG_ERROR', async () => {
    const bad = await engram(['--embedder', `onnx:${join(dir, 'nowhere')}`, 'recall', 'tea']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/^error CONFIG_ERROR: No ONNX model at .*nowhere/);
  });
});

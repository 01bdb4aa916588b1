import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { importJsonl, readJsonl, readJsonlBatches } from '../../src/import/jsonl.js';
import { parseMemoryInput } from '../../src/import/memory-input.js';
import type { MemoryInput } from '../../src/model/memory.js';

async function fixture(content: string | Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'engram-jsonl-'));
  const file = join(dir, 'memories.jsonl');
  await writeFile(file, content);
  return file;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

const GOOD = [
  JSON.stringify({ text: 'likes tea', tags: ['drink'], statedAt: '2024-01-02T03:04:05Z' }),
  '',
  JSON.stringify({
    text: 'uses vim',
    id: 'm2',
    type: 'PreferenceMemory',
    key: 'editor',
    level: 'fact',
    sources: [{ type: 'chat', id: 't9', role: 'user', content: 'I use vim' }],
    metadata: { n: 1, nested: { ok: [true, null] } },
    status: 'archived',
  }),
].join('\r\n');

describe('readJsonl', () => {
  it('parses one MemoryInput per non-blank line with its line number (CRLF, BOM)', async () => {
    const file = await fixture('\uFEFF' + GOOD + '\n');
    const records = await collect(readJsonl(file));
    expect(records.map((r) => r.line)).toEqual([1, 3]);
    expect(records[0]?.input).toEqual({ text: 'likes tea', tags: ['drink'], statedAt: '2024-01-02T03:04:05Z' });
    expect(records[1]?.input).toMatchObject({ id: 'm2', type: 'PreferenceMemory', status: 'archived', key: 'editor' });
    expect(records[1]?.input.sources).toEqual([{ type: 'chat', id: 't9', role: 'user', content: 'I use vim' }]);
  });

  it('reads a last line without a trailing newline and lines split across chunks', async () => {
    const long = 'x'.repeat(200_000);
    const file = await fixture(`${JSON.stringify({ text: long })}\n${JSON.stringify({ text: 'end' })}`);
    const records = await collect(readJsonl(file));
    expect(records.map((r) => r.input.text.length)).toEqual([200_000, 3]);
  });

  const bad: Array<[string, string | Buffer, RegExp]> = [
    ['invalid JSON', `${JSON.stringify({ text: 'a' })}\n{"text": "b",}\n`, /memories\.jsonl: line 2: invalid JSON/],
    ['not an object', '{"text":"a"}\n[1,2]\n', /line 2: expected an object, got an array/],
    ['missing text', '{"text":"a"}\n\n{"tags":[]}\n', /line 3\.text: expected a string, got undefined/],
    ['empty text', '{"text":"  "}\n', /line 1\.text: must not be empty/],
    ['bad tag', '{"text":"a","tags":["x",3]}\n', /line 1\.tags\[1\]: expected a string, got number 3/],
    ['unknown type', '{"text":"a","type":"Dream"}\n', /line 1\.type: expected one of WorkingMemory/],
    ['unknown field', '{"text":"a","scope":{"tenant":"t"}}\n', /line 1\.scope: unknown field/],
    ['bad date', '{"text":"a","statedAt":"soon"}\n', /line 1\.statedAt: cannot parse "soon"/],
    [
      'bad source',
      '{"text":"a","sources":[{"type":"chat"},{"type":"pigeon"}]}\n',
      /line 1\.sources\[1\]\.type: expected one of chat/,
    ],
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('{"text":"a"}\n{"text":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]),
      /line 2: is not valid UTF-8/,
    ],
  ];
  for (const [name, content, pattern] of bad) {
    it(`rejects ${name} naming the line`, async () => {
      const file = await fixture(content);
      await expect(collect(readJsonl(file))).rejects.toMatchObject({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(pattern),
      });
    });
  }

  it('reports a missing file as INVALID_INPUT', async () => {
    await expect(collect(readJsonl('/nonexistent/memories.jsonl'))).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('readJsonlBatches', () => {
  it('groups records and rejects a non-positive batch size', async () => {
    const file = await fixture(Array.from({ length: 5 }, (_, i) => JSON.stringify({ text: `m${i}` })).join('\n'));
    const batches = await collect(readJsonlBatches(file, 2));
    expect(batches.map((b) => b.map((r) => r.line))).toEqual([[1, 2], [3, 4], [5]]);
    await expect(collect(readJsonlBatches(file, 0))).rejects.toMatchObject({ code: 'INVALID_LIMIT' });
  });
});

describe('importJsonl', () => {
  it('imports in batches and reports progress', async () => {
    const file = await fixture(Array.from({ length: 7 }, (_, i) => JSON.stringify({ text: `m${i}` })).join('\n'));
    const seen: MemoryInput[][] = [];
    const progress: Array<[number, number | null]> = [];
    const result = await importJsonl(file, async (inputs) => void seen.push(inputs), {
      batchSize: 3,
      onProgress: (n, total) => progress.push([n, total]),
    });
    expect(result).toEqual({ imported: 7, skipped: 0, batches: 3, lines: 7 });
    expect(seen.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(progress).toEqual([
      [3, 7],
      [6, 7],
      [7, 7],
    ]);
  });

  it('writes nothing when a later line is bad', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => JSON.stringify({ text: `m${i}` }));
    lines[8] = '{"text": 5}';
    const file = await fixture(lines.join('\n'));
    let calls = 0;
    await expect(importJsonl(file, async () => void (calls += 1), { batchSize: 2 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/line 9\.text/),
    });
    expect(calls).toBe(0);
  });

  it('writes nothing when an id repeats, naming both lines', async () => {
    const file = await fixture(['{"text":"a","id":"x"}', '{"text":"b"}', '{"text":"c","id":"x"}'].join('\n'));
    let calls = 0;
    await expect(importJsonl(file, async () => void (calls += 1))).rejects.toMatchObject({
      message: expect.stringMatching(/line 3\.id: id "x" already used on line 1/),
    });
    expect(calls).toBe(0);
  });

  it('names the line range of a batch the store rejects and what was stored before', async () => {
    const file = await fixture(Array.from({ length: 6 }, (_, i) => JSON.stringify({ text: `m${i}` })).join('\n'));
    let stored = 0;
    const error = await importJsonl(
      file,
      async (inputs) => {
        if (stored >= 2) throw new Error('disk full');
        stored += inputs.length;
      },
      { batchSize: 2 },
    ).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'STORE_ERROR',
      message: expect.stringMatching(
        /lines 3-4: batch rejected \(2 memories from earlier batches were stored\): disk full/,
      ),
      details: expect.objectContaining({ firstLine: 3, lastLine: 4, imported: 2 }),
    });
  });
});

describe('importJsonl resuming (storedIds)', () => {
  const lines = (n: number): string =>
    Array.from({ length: n }, (_, i) => JSON.stringify({ id: `id-${i}`, text: `m${i}` })).join('\n');

  it('skips the ids already stored and adds the rest, counting both', async () => {
    const file = await fixture(lines(7));
    const stored = new Set(['id-0', 'id-1', 'id-2', 'id-4']);
    const added: string[] = [];
    const asked: string[][] = [];
    const progress: Array<[number, number | null, number]> = [];
    const result = await importJsonl(file, async (inputs) => void added.push(...inputs.map((i) => i.id as string)), {
      batchSize: 3,
      storedIds: async (ids) => {
        asked.push(ids);
        return new Set(ids.filter((id) => stored.has(id)));
      },
      onProgress: (imported, total, skipped) => progress.push([imported, total, skipped]),
    });
    expect(asked).toEqual([['id-0', 'id-1', 'id-2'], ['id-3', 'id-4', 'id-5'], ['id-6']]);
    expect(added).toEqual(['id-3', 'id-5', 'id-6']);
    // A batch whose lines are all stored makes no addBatch call.
    expect(result).toEqual({ imported: 3, skipped: 4, batches: 2, lines: 7 });
    expect(progress).toEqual([
      [0, 7, 3],
      [2, 7, 4],
      [3, 7, 4],
    ]);
  });

  it('needs an id on every line, and says so before writing anything', async () => {
    const file = await fixture([JSON.stringify({ id: 'a', text: 'x' }), JSON.stringify({ text: 'no id' })].join('\n'));
    let calls = 0;
    await expect(
      importJsonl(file, async () => void (calls += 1), { batchSize: 1, storedIds: async () => new Set() }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/line 2\.id: resuming needs an id/),
    });
    expect(calls).toBe(0);
    await expect(
      importJsonl(file, async () => void (calls += 1), {
        batchSize: 1,
        validateFirst: false,
        storedIds: async () => new Set(),
      }),
    ).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/line 2\.id: resuming needs an id/),
    });
    expect(calls).toBe(1);
  });

  it('names the batch when the lookup itself fails', async () => {
    const file = await fixture(lines(4));
    const error = await importJsonl(file, async () => undefined, {
      batchSize: 2,
      storedIds: async (ids) => {
        if (ids.includes('id-2')) throw new Error('database locked');
        return new Set();
      },
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'STORE_ERROR',
      message: expect.stringMatching(/lines 3-4: batch rejected \(2 memories .*database locked/),
    });
  });
});

describe('parseMemoryInput', () => {
  it('rejects non-JSON metadata values', () => {
    expect(() => parseMemoryInput({ text: 'a', metadata: { n: Number.NaN } }, 'item')).toThrow(
      /item\.metadata\.n: expected a finite number/,
    );
    expect(() => parseMemoryInput({ text: 'a', metadata: [] }, 'item')).toThrow(/item\.metadata: expected an object/);
  });
  it('accepts null for nullable fields', () => {
    expect(parseMemoryInput({ text: 'a', key: null, level: null, statedAt: null, summary: null }, 'x')).toEqual({
      text: 'a',
      key: null,
      level: null,
      statedAt: null,
      summary: null,
    });
  });
});

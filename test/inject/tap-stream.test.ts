import { describe, expect, it } from 'vitest';
import { tapAsyncIterable, tapAsyncIterator, tapReadableStream, type StreamTap } from '../../src/inject/tap-stream.js';

function recorder() {
  const seen: number[] = [];
  const ends: boolean[] = [];
  const tap: StreamTap<number> = { onChunk: (c) => void seen.push(c), onEnd: (done) => void ends.push(done) };
  return { seen, ends, tap };
}

async function* source(n: number, log: string[]): AsyncGenerator<number> {
  try {
    for (let i = 0; i < n; i++) {
      log.push(`yield ${i}`);
      yield i;
    }
  } finally {
    log.push('source closed');
  }
}

describe('tapAsyncIterator', () => {
  it('passes every chunk through in order, one at a time, and reports completion once', async () => {
    const log: string[] = [];
    const r = recorder();
    const out: number[] = [];
    for await (const v of tapAsyncIterator(source(3, log), r.tap)) {
      log.push(`consumer ${v}`);
      out.push(v);
    }
    expect(out).toEqual([0, 1, 2]);
    expect(r.seen).toEqual([0, 1, 2]);
    expect(r.ends).toEqual([true]);
    // Unbuffered: the consumer sees chunk i before the source produces chunk i+1.
    expect(log.slice(0, 4)).toEqual(['yield 0', 'consumer 0', 'yield 1', 'consumer 1']);
  });

  it('an early break reaches the source and reports an incomplete end', async () => {
    const log: string[] = [];
    const r = recorder();
    for await (const v of tapAsyncIterator(source(10, log), r.tap)) if (v === 1) break;
    expect(log.at(-1)).toBe('source closed');
    expect(r.ends).toEqual([false]);
  });

  it('a source error reaches the consumer and reports an incomplete end', async () => {
    const r = recorder();
    async function* failing(): AsyncGenerator<number> {
      yield 1;
      throw new Error('network');
    }
    const read = async () => {
      for await (const _ of tapAsyncIterator(failing(), r.tap)) void _;
    };
    await expect(read()).rejects.toThrow('network');
    expect(r.ends).toEqual([false]);
  });

  it('a throwing tap never disturbs the stream', async () => {
    const out: number[] = [];
    const tap = {
      onChunk: () => {
        throw new Error('tap');
      },
      onEnd: () => {
        throw new Error('tap');
      },
    };
    for await (const v of tapAsyncIterable(
      { [Symbol.asyncIterator]: () => source(3, [])[Symbol.asyncIterator]() },
      tap,
    ))
      out.push(v);
    expect(out).toEqual([0, 1, 2]);
  });
});

describe('tapReadableStream', () => {
  it('passes chunks through and reports completion on close', async () => {
    const r = recorder();
    const src = new ReadableStream<number>({
      start(controller) {
        [5, 6, 7].forEach((v) => controller.enqueue(v));
        controller.close();
      },
    });
    const out: number[] = [];
    const reader = tapReadableStream(src, r.tap).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      out.push(value);
    }
    expect(out).toEqual([5, 6, 7]);
    expect(r.seen).toEqual([5, 6, 7]);
    expect(r.ends).toEqual([true]);
  });
});

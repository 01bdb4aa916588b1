import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OnnxSessionPool, type TensorData } from '../../src/embed/onnx/onnx-session-pool.js';
import { onnxWorkerThreads } from '../../src/embed/onnx/onnx-worker-threads.js';
import { expectCode } from '../support/expect-code.js';
import { tinyEncoderOnnx, tinyEncoderWeights } from './tiny-encoder.js';

const MODEL = tinyEncoderOnnx(tinyEncoderWeights(11, 40, 8));
const OUT = 'last_hidden_state';
const ids = (values: number[]): TensorData => ({
  type: 'int64',
  data: BigInt64Array.from(values.map(BigInt)),
  dims: [1, values.length],
});
const feeds = (tokens: number[]): Record<string, TensorData> => ({
  input_ids: ids(tokens),
  attention_mask: ids(tokens.map(() => 1)),
  token_type_ids: ids(tokens.map(() => 0)),
});
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a module in a fresh Node process (tsx loader), in the repository. */
function runNode(script: string): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: ROOT, timeout: 120_000 },
      (_error, _stdout, stderr) => resolve({ code: child.exitCode, signal: child.signalCode, stderr }),
    );
  });
}

/** What glibc and Node print when the native heap is corrupted or a thread crashes. */
const HEAP_ERROR = /free\(\)|double free|corrupted|malloc|Segmentation|Aborted|FATAL ERROR/;

describe('the ONNX worker threads', { timeout: 180_000 }, () => {
  it('outlive the pools: a closed pool releases its sessions, the next pool reuses the same threads', async () => {
    const first = await OnnxSessionPool.open(MODEL, { workers: 2, threads: 1, label: 'tiny' });
    const threads = await onnxWorkerThreads(2);
    expect(threads).toHaveLength(2);
    const before = (await first.run(feeds([2, 5, 7]), [OUT], 3))[OUT];
    await first.close();
    await expectCode(first.run(feeds([2]), [OUT], 1), 'EMBEDDER_ERROR');

    const second = await OnnxSessionPool.open(MODEL, { workers: 2, threads: 1, label: 'tiny' });
    const again = await onnxWorkerThreads(2);
    expect(again[0]).toBe(threads[0]);
    expect(again[1]).toBe(threads[1]);
    const after = (await second.run(feeds([2, 5, 7]), [OUT], 3))[OUT];
    expect(after?.dims).toEqual([1, 3, 8]);
    expect([...(after?.data ?? [])]).toEqual([...(before?.data ?? [])]);
    await second.close();
  });

  it('release frees a session in its thread: it cannot run afterwards, the thread still can', async () => {
    const [thread] = await onnxWorkerThreads(1);
    if (!thread) throw new Error('no ONNX worker thread');
    const opened = await thread.call({ kind: 'open', model: MODEL, threads: 1 });
    const ran = await thread.call({ kind: 'run', session: opened.id, feeds: feeds([3, 4]), outputs: [OUT] });
    expect(ran.outputs[OUT]?.dims).toEqual([1, 2, 8]);
    await thread.call({ kind: 'release', session: opened.id });
    await expect(thread.call({ kind: 'run', session: opened.id, feeds: feeds([3]), outputs: [OUT] })).rejects.toThrow(
      /no session/,
    );
    const other = await thread.call({ kind: 'open', model: MODEL, threads: 1 });
    expect(other.id).not.toBe(opened.id);
    await thread.call({ kind: 'release', session: other.id });
  });

  it('never load onnxruntime-node in the main thread, and idle threads do not keep the process alive', async () => {
    const { createRequire } = await import('node:module');
    const cache = createRequire(import.meta.url).cache;
    await onnxWorkerThreads(1);
    expect(Object.keys(cache).filter((k) => k.includes('onnxruntime-node'))).toEqual([]);
    // A process that used the pool and closed it ends by itself (no process.exit), with code 0.
    const pool = new URL('../../src/embed/onnx/onnx-session-pool.ts', import.meta.url).href;
    const run = await runNode(`
      const { OnnxSessionPool } = await import(${JSON.stringify(pool)});
      const model = new Uint8Array(${JSON.stringify([...MODEL])});
      const ids = (v) => ({ type: 'int64', data: BigInt64Array.from(v.map(BigInt)), dims: [1, v.length] });
      const p = await OnnxSessionPool.open(model, { workers: 2, threads: 1, label: 'tiny' });
      await p.run({ input_ids: ids([2, 3]), attention_mask: ids([1, 1]), token_type_ids: ids([0, 0]) }, ['${OUT}'], 2);
      await p.close();
    `);
    expect(run).toEqual({ code: 0, signal: null, stderr: '' });
  });

  // The crash this guards against: each pool used to start its own threads and terminate them on
  // close; the next thread to load onnxruntime-node then wrote into the freed environment of a
  // terminated one, and the process died (free(): invalid next size, SIGSEGV), mostly at exit:
  // 14 of 30 processes of six rounds each before the fix. Three such processes here.
  it('opening and closing the default embedder again and again in one process ends with code 0 and an intact heap', async () => {
    const index = new URL('../../src/embed/index.ts', import.meta.url).href;
    const script = `
      const { createLocalEmbedder } = await import(${JSON.stringify(index)});
      for (let round = 0; round < 6; round++) {
        const e = createLocalEmbedder();
        const v = await e.embed(['hello world', 'when is my car insurance due?']);
        if (v.length !== 2 || v[0].length !== 512) throw new Error('unexpected vectors');
        await e.close();
      }
    `;
    for (let run = 0; run < 3; run++) {
      const result = await runNode(script);
      expect(result.stderr).not.toMatch(HEAP_ERROR);
      expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
    }
  });
});

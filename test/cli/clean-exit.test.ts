/**
 * The CLI's processes on the default (ONNX, worker-thread) embedder end with code 0 and an
 * intact native heap, run after run: `engram serve` at SIGTERM, `engram mcp` when its client
 * disconnects, one-shot `add` / `recall`. Each used to die now and then at exit with
 * `free(): invalid next size (fast)` (code 134) or SIGSEGV: onnxruntime-node was loaded again
 * in new worker threads after the threads of a closed embedder had been terminated.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl, watchOutput, type ChildEnd, type ChildOutput } from '../support/child-output.js';
import { demoTopHit } from '../support/demo-recall.js';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');
/** What glibc and Node print when the native heap is corrupted or a thread crashes. */
const HEAP_ERROR = /free\(\)|double free|corrupted|malloc|Segmentation|Aborted|FATAL ERROR/;
const RUNS = 3;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-exit-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts `engram …` on the default embedder (no ENGRAM_EMBEDDER from the environment). */
function start(args: string[]): { child: ChildProcessWithoutNullStreams; output: ChildOutput } {
  const env = { ...process.env };
  delete env['ENGRAM_EMBEDDER'];
  const child = spawn(TSX, [BIN, ...args], { env });
  return { child, output: watchOutput(child, `engram ${args.join(' ')}`) };
}

async function expectCleanExit(run: ReturnType<typeof start>): Promise<ChildEnd> {
  const result = await run.output.closed;
  expect(result.stderr).not.toMatch(HEAP_ERROR);
  expect({ code: result.code, signal: result.signal }).toEqual({ code: 0, signal: null });
  return result;
}

/** The official MCP client over the child's stdio; `close` ends its stdin and nothing else. */
function childTransport(child: ChildProcessWithoutNullStreams): Transport {
  const buffer = new ReadBuffer();
  const transport: Transport = {
    async start() {
      child.stdout.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (let m = buffer.readMessage(); m; m = buffer.readMessage()) transport.onmessage?.(m);
      });
    },
    async send(message: JSONRPCMessage) {
      child.stdin.write(serializeMessage(message));
    },
    async close() {
      child.stdin.end();
      transport.onclose?.();
    },
  };
  return transport;
}

describe('engram processes on the default embedder exit cleanly', { timeout: 600_000 }, () => {
  it(`serve --demo stops on SIGTERM with code 0 after answering a recall (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const serve = start(['serve', '--data-dir', join(dir, `serve-${run}`), '--port', '0', '--demo']);
      const key = (await serve.output.printed(/ENGRAM_API_KEY=(egk_\S+)[\s\S]*SIGTERM stops/))[1];
      const url = await listeningUrl(serve.output);
      // The server's own embedder loads on this first request (the demo's was closed before).
      expect(await demoTopHit(url, key)).toBe("User's car insurance renewal is due on 1 December");
      serve.child.kill('SIGTERM');
      await expectCleanExit(serve);
    }
  });

  it(`mcp ends with code 0 when its client disconnects (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const mcp = start(['--tenant', 'exit-t', 'mcp', '--data-dir', join(dir, 'mcp')]);
      const client = new Client({ name: 'engram-exit-test', version: '1.0.0' });
      await client.connect(childTransport(mcp.child));
      const text = `Dana keeps ${run + 2} beehives on the roof`;
      const added = await client.callTool({ name: 'add_memory', arguments: { text, user: 'dana' } });
      expect(added.isError).not.toBe(true);
      const found = await client.callTool({ name: 'search_memories', arguments: { query: 'beehives', user: 'dana' } });
      expect(JSON.stringify(found.content)).toContain(text);
      await client.close();
      await expectCleanExit(mcp);
    }
  });

  it(`one-shot add and recall end with code 0 (${RUNS} runs)`, async () => {
    const store = ['--store', join(dir, 'one-shot.db'), '--user', 'u1'];
    for (let run = 0; run < RUNS; run++) {
      await expectCleanExit(start([...store, 'add', `The spare key ${run} is under the blue flowerpot`]));
      const recalled = await expectCleanExit(start([...store, 'recall', 'where is the spare key?']));
      expect(recalled.stdout).toContain(`The spare key ${run} is under the blue flowerpot`);
    }
  });
});

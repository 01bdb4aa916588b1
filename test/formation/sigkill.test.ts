/**
 * Durability with a real child process: it remembers conversations (each acknowledged once its
 * turns are durable) and starts forming them; it is killed with SIGKILL while jobs are running.
 * A new process on the same store then finishes the queue: every acknowledged turn is there,
 * every window is formed exactly once, and no fact exists twice. On SQLite and PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { normalizeTurnText } from '../../src/formation/normalize-turn-text.js';
import { handleOf } from './support/chat-for.js';
import {
  CONSOLIDATE,
  EXTRACT,
  describeEachBackend,
  formationSuite,
  openFormed,
  openStoreAt,
} from './support/formation-fixture.js';
import { startScriptedLlm, type ScriptedRequest } from './support/scripted-llm-server.js';

const CHILD = fileURLToPath(new URL('./fixtures/formation-child.ts', import.meta.url));
const { backends } = formationSuite();

const SCOPE = { tenant: 't', user: 'kill' };
const WINDOWS = 6;
/** Six conversations of five turns; each user turn states one fact, numbered so each is distinct. */
const conversations = Array.from({ length: WINDOWS }, (_, w) =>
  Array.from({ length: 5 }, (_, t) => ({
    role: t % 2 === 0 ? 'user' : 'assistant',
    text: t % 2 === 0 ? `Fact number ${w * 5 + t}: I collect item ${w * 5 + t}.` : `Noted, item ${w * 5 + t}.`,
    session: `c${w}`,
    messageId: `c${w}-${t}`,
    occurredAt: `2026-01-0${1 + (w % 9)}T10:00:00Z`,
  })),
);

/** The extractor's answer: one fact per user turn of the window. */
function extractionReply(request: ScriptedRequest) {
  const memories = [...request.prompt.matchAll(/Fact number (\d+)/g)].map((m) => ({
    text: `The user collects item ${m[1]}`,
    kind: 'user_fact',
    key: null,
    tags: [],
    confidence: 0.9,
    turns: [handleOf(request.prompt, `Fact number ${m[1]}:`, 't')],
    when: null,
  }));
  return { content: { memories } };
}

function waitFor(child: ChildProcess, line: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    let out = '';
    const acks: string[] = [];
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split('\n');
      out = lines.pop() ?? '';
      for (const l of lines) {
        if (l.startsWith('ACK ')) acks.push(...l.slice(4).split(','));
        if (l === line) resolve(acks);
      }
    });
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before ${line}`)));
  });
}

describeEachBackend('SIGKILL mid-formation on %s', (backend) => {
  it('loses no acknowledged turn, and the restarted worker forms every window once, without duplicate facts', async () => {
    const server = await startScriptedLlm({
      latencyMs: 250,
      rules: [
        { name: 'extract', match: EXTRACT, reply: extractionReply },
        // No decision: the deterministic rules decide (the fallback path), NOOP on equal text.
        { name: 'consolidate', match: CONSOLIDATE, reply: { content: { decisions: [] } } },
      ],
    });
    const location = await backends.location(backend);
    await (await openFormed(await openStoreAt(location), null)).close(); // migrate before two processes race for it
    const transcript = join(tmpdir(), `engram-kill-${process.pid}-${backend}.json`);
    writeFileSync(transcript, JSON.stringify(conversations));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD, location, 'openai', server.openaiBaseUrl, transcript],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const watcher = await openFormed(await openStoreAt(location), null, { worker: false });
    try {
      const acked = await waitFor(child, 'ALL');
      expect(acked).toHaveLength(WINDOWS * 5);
      // Kill while the child has formed some windows and is forming others.
      for (let i = 0; i < 400; i++) {
        const { counts } = (await watcher.formationStatus({ scope: SCOPE })).queue;
        const asked = server.calls.filter((c) => c.rule === 'extract').length;
        if (counts.succeeded >= 1 && counts.running >= 1 && asked > counts.succeeded) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const before = (await watcher.formationStatus({ scope: SCOPE })).queue.counts;
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      expect(before.running).toBeGreaterThanOrEqual(1);
      expect(before.succeeded).toBeLessThan(WINDOWS);

      const restarted = await openFormed(
        await openStoreAt(location),
        { provider: 'openai', server },
        { worker: { leaseMs: 1_500 } },
      );
      try {
        await restarted.idle({ scope: SCOPE, timeoutMs: 30_000 });
        const status = await restarted.formationStatus({ scope: SCOPE });
        expect(status.queue.counts).toMatchObject({ succeeded: WINDOWS, dead: 0, queued: 0, running: 0, retrying: 0 });
        // Every acknowledged turn is stored.
        const episodes = await restarted.list({
          scope: SCOPE,
          types: ['WorkingMemory'],
          statuses: ['activated', 'archived'],
          limit: 100,
        });
        expect(new Set(episodes.items.map((e) => e.id))).toEqual(new Set(acked));
        // Every fact once: 18 user turns, 18 facts, no text twice.
        const formed = await restarted.list({ scope: SCOPE, types: ['UserMemory'], limit: 100 });
        const texts = formed.items.map((m) => normalizeTurnText(m.text));
        expect(texts).toHaveLength(WINDOWS * 3);
        expect(new Set(texts).size).toBe(texts.length);
        // The windows killed mid-way were extracted again (their first answer was never applied).
        const extractions = server.calls.filter((c) => c.rule === 'extract').length;
        expect(extractions).toBeGreaterThan(WINDOWS);
      } finally {
        await restarted.close();
      }
    } finally {
      child.kill('SIGKILL');
      await watcher.close();
      await server.close();
    }
  }, 90_000);
});

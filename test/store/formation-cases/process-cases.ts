import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { OperationVector } from '../../../src/model/formation/formation-store.js';
import { turnTextKey } from '../../../src/model/formation/normalize-turn-text.js';
import type { ChildStoreSpec, StallWindowArgs } from '../fixtures/child-store-spec.js';
import { formationOf, type CaseContext } from './case-context.js';
import { turnWrite, windowJob } from './episode-cases.js';
import { sec } from './queue-cases.js';
import { windowFixture } from './window-cases.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'formation-child.ts');
const NEEDS_CHILD = 'the database is private to this process';

function child(spec: ChildStoreSpec, args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(spec), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Resolves when the child prints `line`; rejects when it exits first. */
function when(proc: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').includes(line)) resolve();
    });
    proc.on('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before "${line}": ${err}`)));
  });
}

/** SIGKILLs the child and waits until it is gone. */
async function kill(proc: ChildProcess): Promise<void> {
  const gone = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  proc.kill('SIGKILL');
  await gone;
}

function plainVectors(vectors: Map<string, OperationVector>): StallWindowArgs['vectors'] {
  return [...vectors].map(([id, v]) => [id, { vector: [...v.vector], embedding: v.embedding }]);
}

/** Two processes on one database: SIGKILL inside a transaction, and appends racing each other. */
export function processCases({ test, store: current, tenant, childSpec }: CaseContext): void {
  const unsupported = childSpec === undefined ? NEEDS_CHILD : undefined;

  test(
    'a process SIGKILLed inside appendEpisodes leaves nothing; the append then happens once',
    async () => {
      const store = current();
      const { episodes, queue, history } = formationOf(store);
      const T = tenant('kill-append');
      const texts = ['I moved to Berlin', 'I am allergic to peanuts', 'I like jazz'];
      const proc = child(childSpec!(), ['append-stall', T, JSON.stringify(texts)]);
      await when(proc, 'stalled');
      await kill(proc);
      expect(await store.count({ scope: { tenant: T } })).toBe(0);
      expect((await queue.list(T)).items).toEqual([]);
      const scope = { tenant: T, user: 'u' };
      expect(await episodes.findEpisode(scope, turnTextKey(texts[0]!))).toBeNull();
      const writes = texts.map((t, i) => turnWrite(scope, t, { messageId: `m${i}`, session: 's' }));
      const jobsFor = () => [windowJob(scope, 'after-restart', [])];
      const first = await episodes.appendEpisodes(writes, { at: sec(1), jobsFor });
      const replay = await episodes.appendEpisodes(writes, { at: sec(2), jobsFor });
      expect(first.map((p) => p.action)).toEqual(['insert', 'insert', 'insert']);
      expect(replay.map((p) => p.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
      expect(await store.count({ scope: { tenant: T } })).toBe(3);
      expect((await queue.list(T)).items).toHaveLength(1);
      const events = await history.forMemories(
        T,
        first.map((p) => p.episode.id),
      );
      expect(events.map((e) => e.kind)).toEqual(['created', 'created', 'created']);
    },
    unsupported,
  );

  test(
    'a process SIGKILLed inside completeWindow leaves nothing; the job is taken over and forms each fact once',
    async () => {
      const store = current();
      const formation = formationOf(store);
      const T = tenant('kill-window');
      const { job, context, operations, vectors, result, before } = await windowFixture(store, T, 'dead-worker');
      const proc = child(childSpec!(), [
        'window-stall',
        T,
        JSON.stringify({
          job: { id: job.id, owner: 'dead-worker', result },
          operations,
          vectors: plainVectors(vectors),
          context,
          stallOn: 'city',
        } satisfies StallWindowArgs),
      ]);
      await when(proc, 'stalled');
      await kill(proc);
      expect(await before.read()).toEqual(before.value);
      const [running] = (await formation.queue.list(T)).items;
      expect(running).toMatchObject({ state: 'running', lease: { owner: 'dead-worker' }, attempts: 1 });
      // After the lease runs out, another worker takes the job over and completes it.
      const [taken] = await formation.queue.claim({
        owner: 'w2',
        limit: 1,
        now: sec(4000),
        leaseMs: 60_000,
        tenant: T,
      });
      expect(taken).toMatchObject({ id: job.id, attempts: 2 });
      const done = await formation.completeWindow({ id: job.id, owner: 'w2', result }, operations, vectors, context);
      expect(done.history.map((e) => [e.kind, e.memoryId])).toEqual([
        ['created', 'globex'],
        ['superseded', 'acme'],
        ['updated', 'tea'],
        ['confirmed', 'city'],
      ]);
      // A late completion by the dead worker's id is answered with the same result, adding nothing.
      const late = await formation.completeWindow(
        { id: job.id, owner: 'dead-worker', result },
        operations,
        vectors,
        context,
      );
      expect(late.history).toEqual(done.history);
      const events = await formation.history.forMemories(T, ['globex', 'acme', 'tea', 'city']);
      expect(events.filter((e) => e.cause.type === 'formation')).toHaveLength(4);
      const globex = await store.list({ scope: { tenant: T }, key: 'user.employer', validAt: sec(4000) });
      expect(globex.items.map((m) => m.id)).toEqual(['globex']);
    },
    unsupported,
  );

  test(
    'two processes appending the same texts at the same moment end with one row per text, counted twice',
    async () => {
      const store = current();
      const { episodes } = formationOf(store);
      const T = tenant('race');
      const texts = Array.from({ length: 12 }, (_, i) => `shared fact number ${i}`);
      const startAt = Date.now() + 1500;
      const proc = child(childSpec!(), ['race-append', T, String(startAt), JSON.stringify(texts)]);
      const finished = when(proc, 'done');
      finished.catch(() => undefined); // awaited below; a child that fails early must not go unhandled
      while (Date.now() < startAt) await new Promise((resolve) => setTimeout(resolve, 1));
      for (const text of texts) {
        await episodes.appendEpisodes(
          [turnWrite({ tenant: T, user: 'u' }, text, { messageId: `parent-${text}`, session: 's' })],
          {
            at: new Date().toISOString(),
          },
        );
      }
      await finished;
      expect(await store.count({ scope: { tenant: T } })).toBe(texts.length);
      for (const text of texts) {
        const episode = await episodes.findEpisode({ tenant: T, user: 'u' }, turnTextKey(text));
        expect(episode?.count, text).toBe(2);
        expect(episode?.sources.map((s) => s.messageId).sort()).toEqual([`child-${text}`, `parent-${text}`]);
      }
    },
    unsupported,
  );

  test(
    'two processes claiming at once never get the same job',
    async () => {
      const store = current();
      const { queue } = formationOf(store);
      const T = tenant('claims');
      const keys = Array.from({ length: 40 }, (_, i) => `job-${i}`);
      await queue.enqueue(
        T,
        keys.map((k) => windowJob({ tenant: T }, k, [])),
        sec(0),
      );
      const startAt = Date.now() + 1500;
      const proc = child(childSpec!(), ['race-claim', T, String(startAt), String(keys.length)]);
      const output = new Promise<string[]>((resolve, reject) => {
        let out = '';
        proc.stdout?.on('data', (d: Buffer) => (out += d.toString()));
        proc.on('exit', (code) =>
          code === 0
            ? resolve(out.split('\n').filter((l) => l.startsWith('job ')))
            : reject(new Error(`child exited ${code}`)),
        );
      });
      output.catch(() => undefined);
      while (Date.now() < startAt) await new Promise((resolve) => setTimeout(resolve, 1));
      const mine: string[] = [];
      for (let i = 0; i < keys.length; i++) {
        const claimed = await queue.claim({ owner: 'parent', limit: 1, now: sec(10), leaseMs: 600_000, tenant: T });
        mine.push(...claimed.map((j) => j.id));
      }
      const theirs = (await output).map((line) => line.slice('job '.length));
      expect(mine.filter((id) => theirs.includes(id))).toEqual([]);
      expect(new Set([...mine, ...theirs]).size).toBe(keys.length);
      expect(mine.length + theirs.length).toBe(keys.length);
    },
    unsupported,
  );
}

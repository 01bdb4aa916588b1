/**
 * A job commits its facts, then archives the window's turns. When the archiving fails (here a real
 * SQLite trigger refuses it), the job stays succeeded — it is neither retried nor reported as a
 * lost lease — the worker says what failed, and the turns stay recallable beside the facts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Engram, EngramEvent } from '../../src/engram.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { openSqliteDatabase } from '../../src/util/sqlite-database.js';
import { openFormed } from './support/formation-fixture.js';

const dirs: string[] = [];
const open: Engram[] = [];
afterEach(async () => {
  for (const engram of open.splice(0)) await engram.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const SCOPE = { tenant: 't', user: 'ana' };
const TURNS = [
  { role: 'user', speaker: 'Ana', text: 'I live in Lisbon.', messageId: 'm1', occurredAt: '2024-05-10T09:00:00Z' },
];

async function formedWith(refuseArchiving: boolean): Promise<{ engram: Engram; events: EngramEvent[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-archive-'));
  dirs.push(dir);
  const path = join(dir, 'm.db');
  const events: EngramEvent[] = [];
  const engram = await openFormed(
    await createSqliteStore({ path }),
    null,
    { extractor: 'rules', formedTurns: 'archive' },
    events,
  );
  open.push(engram);
  if (refuseArchiving) {
    const db = openSqliteDatabase(path);
    db.exec(`CREATE TRIGGER refuse_archive BEFORE UPDATE OF status ON memories
      WHEN NEW.status = 'archived' BEGIN SELECT RAISE(ABORT, 'archiving refused'); END`);
    db.close();
  }
  await engram.remember(TURNS, { scope: SCOPE });
  await engram.idle({ scope: SCOPE, timeoutMs: 10_000 });
  return { engram, events };
}

const formationEvents = (events: EngramEvent[]) =>
  events.flatMap((e) => (e.type === 'formation' && e.formation ? [e.formation] : []));

it('a turn archive that fails after the commit leaves the job succeeded and says so', async () => {
  const { engram, events } = await formedWith(true);
  const status = await engram.formationStatus({ scope: SCOPE });
  expect(status.queue.counts).toMatchObject({ succeeded: 1, retrying: 0, dead: 0, running: 0 });
  const seen = formationEvents(events).map((e) => e.type);
  expect(seen).toContain('job-succeeded');
  expect(seen).not.toContain('lease-lost');
  expect(seen).not.toContain('job-retrying');
  const failure = formationEvents(events).find((e) => e.type === 'worker-error');
  expect(failure).toMatchObject({ detail: expect.stringMatching(/archiving the formed turns of job .* failed/) });
  const list = await engram.list({ scope: SCOPE });
  const turn = list.items.find((m) => m.text === 'I live in Lisbon.');
  expect(turn?.status).toBe('activated');
  expect(list.items.some((m) => m.id !== turn?.id && /Lisbon/.test(m.text))).toBe(true);
});

it('without the failure the same window archives its turn (the case above is the trigger, not the setup)', async () => {
  const { engram, events } = await formedWith(false);
  expect(formationEvents(events).some((e) => e.type === 'worker-error')).toBe(false);
  const archived = await engram.list({ scope: SCOPE, statuses: ['archived'] });
  expect(archived.items.map((m) => m.text)).toEqual(['I live in Lisbon.']);
});

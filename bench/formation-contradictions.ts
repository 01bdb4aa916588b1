/**
 * Contradictions: the share of superseding cases where recall puts the current value first and
 * omits the old one (goal 100%), through the whole path, on SQLite, with the offline embedder.
 *
 *   npx tsx bench/formation-contradictions.ts [--json]
 *
 * 24 hand-written cases (a move, a new employer, a new job title, a changed favourite, an allergy
 * that ended, an activity given up), each its own user: a first conversation states the old value
 * beside two unrelated facts, a second one, later, states the new value. Two paths:
 * - `rules`: no LLM — the rule-based extractor and the deterministic consolidator (same key →
 *   SUPERSEDE);
 * - `llm`: the LLM extractor and consolidator through the project's chat client against the
 *   scripted server, which answers like a careful model: the case's facts with their keys, and
 *   SUPERSEDE for a candidate whose key a listed memory has, ADD otherwise.
 * Recall with the defaults (limit 5, threshold 0.1); "current first" = the top hit states the new
 * value; "old omitted" = no hit states the old one; `asOf` between the conversations must put the
 * old value first and omit the new one.
 */
import type { FormationOptions } from '../src/formation/formation-options.js';
import { chatFor } from '../test/formation/support/chat-for.js';
import type { ScriptedRequest, ScriptedReply } from '../test/formation/support/scripted-llm-server.js';
import { parseArgs } from './lib/args.js';
import { openBenchEmbedder } from './lib/bench-embedder.js';
import { consolidateByMatch, scriptedFact, startScriptedFormation } from './lib/scripted-formation.js';
import { openTempSqliteEngram } from './lib/temp-sqlite-engram.js';
import { fmt, markdownTable } from './lib/stats.js';

interface Case {
  name: string;
  key: string;
  old: { said: string; fact: string };
  now: { said: string; fact: string };
  question: string;
  /** Words that show a hit states the value. */
  oldValue: string;
  newValue: string;
}

const FILLER = [
  ['I love green tea.', 'loves green tea', 'user.preference.green_tea'],
  ['My favourite colour is teal.', "'s favourite colour is teal", 'user.favourite.colour'],
] as const;

const people = ['Ana', 'Ben', 'Chloe', 'Dev', 'Eva', 'Farid', 'Gina', 'Hugo', 'Ines', 'Jon', 'Kira', 'Luis'];
const move = (i: number, from: string, to: string): Case => ({
  name: `move ${from} → ${to}`,
  key: 'user.residence',
  old: { said: `I live in ${from}.`, fact: `lives in ${from}` },
  now: { said: `I moved to ${to} last month.`, fact: `moved to ${to}` },
  question: `Which city does ${people[i]} live in?`,
  oldValue: from,
  newValue: to,
});
const employer = (i: number, from: string, to: string): Case => ({
  name: `employer ${from} → ${to}`,
  key: 'user.employer',
  old: { said: `I work at ${from}.`, fact: `works at ${from}` },
  now: { said: `I started working at ${to}.`, fact: `started working at ${to}` },
  question: `Where does ${people[i]} work?`,
  oldValue: from,
  newValue: to,
});
const title = (i: number, from: string, to: string): Case => ({
  name: `job ${from} → ${to}`,
  key: 'user.job_title',
  old: { said: `I work as a ${from}.`, fact: `works as a ${from}` },
  now: { said: `I work as a ${to} now.`, fact: `works as a ${to}` },
  question: `What is ${people[i]}'s job?`,
  oldValue: from,
  newValue: to,
});
const favourite = (i: number, what: string, from: string, to: string): Case => ({
  name: `favourite ${what} ${from} → ${to}`,
  key: `user.favourite.${what}`,
  old: { said: `My favourite ${what} is ${from}.`, fact: `'s favourite ${what} is ${from}` },
  now: { said: `My favourite ${what} is ${to} these days.`, fact: `'s favourite ${what} is ${to}` },
  question: `What is ${people[i]}'s favourite ${what}?`,
  oldValue: from,
  newValue: to,
});
const allergyEnded = (i: number, what: string): Case => ({
  name: `allergy to ${what} ended`,
  key: `user.allergy.${what}`,
  old: { said: `I'm allergic to ${what}.`, fact: `is allergic to ${what}` },
  now: { said: `I'm no longer allergic to ${what}.`, fact: `is no longer allergic to ${what}` },
  question: `Is ${people[i]} allergic to ${what}?`,
  oldValue: `is allergic to ${what}`,
  newValue: `no longer allergic to ${what}`,
});
const gaveUp = (i: number, what: string): Case => ({
  name: `${what} given up`,
  key: `user.activity.${what}`,
  old: { said: `I started ${what} this year.`, fact: `started ${what}` },
  now: { said: `I quit ${what} after my knee injury.`, fact: `quit ${what}` },
  question: `Does ${people[i]} still do ${what}?`,
  oldValue: `started ${what}`,
  newValue: `quit ${what}`,
});

const CASES: Case[] = [
  move(0, 'Lisbon', 'Berlin'),
  move(1, 'Madrid', 'Toronto'),
  move(2, 'Oslo', 'Nairobi'),
  move(3, 'Chicago', 'Denver'),
  move(4, 'Sydney', 'Auckland'),
  move(5, 'Paris', 'Lyon'),
  employer(6, 'Acme', 'Globex'),
  employer(7, 'Initech', 'Umbrella'),
  employer(8, 'Hooli', 'Pied Piper'),
  employer(9, 'Stark Industries', 'Wayne Enterprises'),
  employer(10, 'the city library', 'the national museum'),
  title(11, 'nurse', 'paramedic'),
  title(0, 'teacher', 'school principal'),
  title(1, 'barista', 'software engineer'),
  title(2, 'carpenter', 'architect'),
  favourite(3, 'food', 'pizza', 'sushi'),
  favourite(4, 'band', 'Queen', 'Radiohead'),
  favourite(5, 'sport', 'tennis', 'climbing'),
  favourite(6, 'book', 'Dune', 'Middlemarch'),
  allergyEnded(7, 'cats'),
  allergyEnded(8, 'penicillin'),
  gaveUp(9, 'running'),
  gaveUp(10, 'smoking'),
  gaveUp(11, 'painting'),
];

const personOf = (c: Case): string => people[CASES.indexOf(c) % people.length] as string;
const userOf = (c: Case): string => `case-${CASES.indexOf(c)}`;

/** The scripted model's facts for a conversation whose prompt names `said` texts. */
function extraction(request: ScriptedRequest): ScriptedReply {
  const memories: unknown[] = [];
  for (const m of request.prompt.matchAll(/^\[(t\d+)\] \S+ user \(([^)]+)\): (".*")$/gm)) {
    const handle = m[1] as string;
    const person = m[2] as string;
    const text = JSON.parse(m[3] as string) as string;
    for (const c of CASES) {
      for (const side of [c.old, c.now]) {
        if (personOf(c) === person && side.said === text) {
          const subject = side.fact.startsWith("'") ? `${person}${side.fact}` : `${person} ${side.fact}`;
          memories.push(scriptedFact(subject, handle, 'user_fact', c.key));
        }
      }
    }
    for (const [said, fact, key] of FILLER) {
      if (said === text) {
        const subject = fact.startsWith("'") ? `${person}${fact}` : `${person} ${fact}`;
        memories.push(scriptedFact(subject, handle, 'preference', key));
      }
    }
  }
  return { content: { memories } };
}

/** SUPERSEDE the listed memory with the candidate's key, else ADD. */
function consolidation(request: ScriptedRequest): ScriptedReply {
  return consolidateByMatch(request.prompt, 'SUPERSEDE', (c, m) => c.key !== null && m.key === c.key);
}

async function runPath(name: string, formation: FormationOptions, embedder: ReturnType<typeof openBenchEmbedder>) {
  const { engram, dispose } = await openTempSqliteEngram('engram-contradictions-', 'c.db', {
    embedder,
    env: {},
    trackUsage: false,
    ownResources: false,
    formation: { ...formation, worker: { pollMs: 20 } },
  });
  const outcomes: Array<{
    name: string;
    currentFirst: boolean;
    oldOmitted: boolean;
    asOfOldFirst: boolean;
    asOfNewOmitted: boolean;
    top: string;
    topThen: string;
  }> = [];
  try {
    for (const c of CASES) {
      const scope = { tenant: 'bench', user: userOf(c) };
      const speaker = personOf(c);
      const turn = (text: string, session: string, at: string, n: number) => ({
        role: 'user',
        speaker,
        text,
        session,
        messageId: `${session}-${n}`,
        occurredAt: at,
      });
      await engram.remember(
        [
          turn(c.old.said, 's1', '2024-03-01T10:00:00Z', 1),
          turn(FILLER[0][0], 's1', '2024-03-01T10:00:00Z', 2),
          turn(FILLER[1][0], 's1', '2024-03-01T10:00:00Z', 3),
        ],
        { scope },
      );
      await engram.idle({ scope });
      await engram.remember([turn(c.now.said, 's2', '2026-03-04T10:00:00Z', 1)], { scope });
      await engram.idle({ scope });
      const now = (await engram.recall(c.question, { scope })).hits.map((h) => h.memory.text);
      const then = (await engram.recall(c.question, { scope, asOf: '2025-01-01T00:00:00Z' })).hits.map(
        (h) => h.memory.text,
      );
      const states = (texts: string[], value: string) =>
        texts.map((t) => t.toLowerCase().includes(value.toLowerCase()));
      outcomes.push({
        name: c.name,
        currentFirst: states(now.slice(0, 1), c.newValue)[0] === true,
        oldOmitted: !states(now, c.oldValue).some((x, i) => x && !states([now[i] as string], c.newValue)[0]),
        asOfOldFirst: states(then.slice(0, 1), c.oldValue)[0] === true,
        asOfNewOmitted: !states(then, c.newValue).some(Boolean),
        top: now[0] ?? '(none)',
        topThen: then[0] ?? '(none)',
      });
    }
    return { name, outcomes };
  } finally {
    await dispose();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2), [], ['json']);
  const embedder = openBenchEmbedder();
  const server = await startScriptedFormation({ extract: extraction, consolidate: consolidation });
  try {
    const runs = [
      await runPath('rules', { extractor: 'rules' }, embedder),
      await runPath('llm', { llm: chatFor('openai', server) }, embedder),
    ];
    if (args.flags.has('json')) {
      process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
      return;
    }
    const share = (xs: boolean[]) => xs.filter(Boolean).length / xs.length;
    const rows = runs.map((r) => {
      const both = r.outcomes.map((o) => o.currentFirst && o.oldOmitted);
      return [
        r.name,
        String(r.outcomes.length),
        fmt(share(both)),
        fmt(share(r.outcomes.map((o) => o.currentFirst))),
        fmt(share(r.outcomes.map((o) => o.oldOmitted))),
        fmt(share(r.outcomes.map((o) => o.asOfOldFirst && o.asOfNewOmitted))),
      ];
    });
    process.stdout.write(
      `${markdownTable(['path', 'cases', 'current first and old omitted', 'current first', 'old omitted', 'asOf: old first, new omitted'], rows)}\n`,
    );
    for (const r of runs) {
      const misses = r.outcomes.filter((o) => !(o.currentFirst && o.oldOmitted && o.asOfOldFirst && o.asOfNewOmitted));
      for (const m of misses) {
        process.stdout.write(`\n${r.name} miss: ${m.name} — top now: "${m.top}"; top as of 2025: "${m.topThen}"`);
      }
      if (misses.length > 0) process.stdout.write('\n');
    }
  } finally {
    await server.close();
    await embedder.close?.();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});

/**
 * Quality of the write-safety guard on the labelled tables (test/safety/fixtures) and on
 * ordinary conversation.
 *
 *   npx tsx bench/safety-quality.ts [--data ../shared/data/locomo-dev.json] [--errors] [--json]
 *
 * - Detection: precision and recall per category (secret, card, iban, nationalId, phone, email)
 *   and overall, on the tuning part and on the held-out part of the sensitive-data table. A row
 *   counts once per category it holds or is found to hold. Detection runs with phone region US
 *   and the us-ssn and uk-nino national ids (as the fixtures' README says).
 * - Leaks: rows where a planted value survives masking everything that was detected.
 * - Guard: precision and recall of the instruction flag on both parts of the guard table.
 * - Ordinary text: how many LoCoMo turns, captions, observations and session summaries are
 *   flagged or found to hold sensitive data (every one of them is a false positive).
 * - Look-alikes at scale: 1,000 seeded random strings of each family that must pass (UUIDs, hex
 *   hashes, valid ISBN-13s, timestamps, versions, UPS tracking numbers, IPs, base64 blobs, grouped
 *   12-digit numbers, Amazon order numbers) and random 16-digit numbers, which are card-shaped by
 *   chance at a known rate (Luhn passes 1 in 10; then the brand prefix must fit).
 * `--errors` lists every row the guard or the detector got wrong.
 */
import { detectSensitive } from '../src/safety/detect/detect-sensitive.js';
import { checkInstructions } from '../src/safety/guard/poisoning-guard.js';
import { SENSITIVE_CATEGORIES } from '../src/safety/sensitive-category.js';
import {
  guardRows,
  LOCOMO_DEV,
  locomoTexts,
  scoreGuard,
  scoreSensitive,
  sensitiveRows,
  type GuardScore,
  type SensitiveScore,
  type TablePart,
} from '../test/safety/support/safety-tables.js';
import { parseArgs } from './lib/args.js';
import { fmt, markdownTable } from './lib/stats.js';
import { mulberry32 } from './lib/synthetic-corpus.js';

const args = parseArgs(process.argv.slice(2), ['data'], ['errors', 'json']);
const PARTS: readonly TablePart[] = ['tuning', 'heldout'];

function sensitiveTable(scores: Record<TablePart, SensitiveScore>): string {
  const rows = [...SENSITIVE_CATEGORIES, 'overall' as const].map((category) => {
    const cells = PARTS.flatMap((part) => {
      const s = category === 'overall' ? scores[part].overall : scores[part].perCategory[category];
      return [String(s.tp + s.fn), fmt(s.precision), fmt(s.recall), `${s.tp}/${s.fp}/${s.fn}`];
    });
    return [category, ...cells];
  });
  const header = ['category', ...PARTS.flatMap((p) => [`${p}: rows with it`, 'precision', 'recall', 'tp/fp/fn'])];
  return markdownTable(header, rows);
}

function guardTable(scores: Record<TablePart, GuardScore>): string {
  return markdownTable(
    ['part', 'rows', 'instruction-like', 'precision', 'recall', 'tp/fp/fn'],
    PARTS.map((part) => {
      const s = scores[part];
      return [part, String(s.rows), String(s.tp + s.fn), fmt(s.precision), fmt(s.recall), `${s.tp}/${s.fp}/${s.fn}`];
    }),
  );
}

function ordinaryText(path: string): { texts: number; flagged: string[]; sensitive: string[] } {
  const texts = locomoTexts(path);
  return {
    texts: texts.length,
    flagged: texts.filter((t) => checkInstructions(t).flagged),
    sensitive: texts.filter((t) => detectSensitive(t, { phoneRegion: 'US' }).length > 0),
  };
}

type Family = [name: string, make: (r: () => number) => string];

function pick(r: () => number, alphabet: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(r() * alphabet.length)];
  return out;
}

const HEX = '0123456789abcdef';
const DIGITS = '0123456789';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function isbn13(r: () => number): string {
  const d = `97${r() < 0.5 ? 8 : 9}${pick(r, DIGITS, 9)}`;
  const sum = [...d].reduce((s, c, i) => s + Number(c) * (i % 2 === 0 ? 1 : 3), 0);
  return `ISBN ${d}${(10 - (sum % 10)) % 10}`;
}

const FAMILIES: Family[] = [
  [
    'uuid',
    (r) => `id ${pick(r, HEX, 8)}-${pick(r, HEX, 4)}-4${pick(r, HEX, 3)}-a${pick(r, HEX, 3)}-${pick(r, HEX, 12)}`,
  ],
  ['sha1 / sha256', (r) => `commit ${pick(r, HEX, r() < 0.5 ? 40 : 64)}`],
  ['isbn-13', isbn13],
  [
    'timestamp',
    (r) =>
      `at 20${pick(r, '12', 1)}${pick(r, DIGITS, 1)}-0${pick(r, '123456789', 1)}-1${pick(r, DIGITS, 1)}T1${pick(r, DIGITS, 1)}:${pick(r, '012345', 1)}${pick(r, DIGITS, 1)}:00.${pick(r, DIGITS, 3)}Z`,
  ],
  ['version', (r) => `v${pick(r, DIGITS, 1)}.${pick(r, DIGITS, 2)}.${pick(r, DIGITS, 3)}-rc.${pick(r, DIGITS, 1)}`],
  ['ups tracking', (r) => `tracking 1Z${pick(r, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', 16)}`],
  [
    'ipv4 / ipv6',
    (r) =>
      r() < 0.5
        ? `host 10.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}:8080`
        : `host 2001:db8:${pick(r, HEX, 4)}:${pick(r, HEX, 4)}::${pick(r, HEX, 4)}`,
  ],
  ['base64 blob', (r) => `data ${pick(r, B64, 32 + Math.floor(r() * 32))}==`],
  ['12-digit grouped', (r) => `part ${pick(r, DIGITS, 4)}-${pick(r, DIGITS, 4)}-${pick(r, DIGITS, 4)}`],
  ['amazon order', (r) => `order ${pick(r, DIGITS, 3)}-${pick(r, DIGITS, 7)}-${pick(r, DIGITS, 7)}`],
  ['random 16 digits (card-shaped by chance)', (r) => `ref ${pick(r, '123456789', 1)}${pick(r, DIGITS, 15)}`],
];

function lookAlikes(perFamily = 1000): string[][] {
  return FAMILIES.map(([name, make], f) => {
    const r = mulberry32(1000 + f);
    let found = 0;
    const categories = new Map<string, number>();
    for (let i = 0; i < perFamily; i++) {
      const hits = detectSensitive(make(r), { phoneRegion: 'US' });
      if (hits.length > 0) found++;
      for (const h of hits) categories.set(h.category, (categories.get(h.category) ?? 0) + 1);
    }
    const by = [...categories].map(([c, n]) => `${c} ${n}`).join(', ');
    return [name, String(perFamily), String(found), fmt(found / perFamily, 3), by || '–'];
  });
}

const sensitive = {
  tuning: scoreSensitive(sensitiveRows('tuning')),
  heldout: scoreSensitive(sensitiveRows('heldout')),
};
const guard = { tuning: scoreGuard(guardRows('tuning')), heldout: scoreGuard(guardRows('heldout')) };
const dataPath = args.values.get('data') ?? LOCOMO_DEV;
const ordinary = dataPath === undefined ? null : ordinaryText(dataPath);
const alikes = lookAlikes();

if (args.flags.has('json')) {
  console.log(JSON.stringify({ sensitive, guard, ordinary, lookAlikes: alikes }, null, 2));
} else {
  console.log('## Detection (labelled table)\n');
  console.log(sensitiveTable(sensitive));
  for (const part of PARTS) {
    const s = sensitive[part];
    console.log(
      `\n${part}: ${s.rows} rows, ${s.leaks.length} leaks, ${s.kindMismatches.length} secrets under another provider's name`,
    );
  }
  console.log('\n## Poisoning guard (labelled table)\n');
  console.log(guardTable(guard));
  if (ordinary !== null) {
    console.log(`\n## Ordinary conversation (${dataPath})\n`);
    console.log(
      `${ordinary.texts} texts: ${ordinary.flagged.length} flagged as instructions, ${ordinary.sensitive.length} with sensitive data found`,
    );
  }
  console.log('\n## Look-alikes at scale (detection with phone region US)\n');
  console.log(markdownTable(['family', 'strings', 'detected', 'share', 'as'], alikes));
  if (args.flags.has('errors')) {
    for (const part of PARTS) {
      for (const e of sensitive[part].errors)
        console.log(`detect ${part}: expected [${e.expected}] found [${e.found}]: ${e.text.slice(0, 100)}`);
      for (const t of guard[part].misses) console.log(`guard ${part} miss: ${t.slice(0, 100)}`);
      for (const t of guard[part].falseAlarms) console.log(`guard ${part} false alarm: ${t.slice(0, 100)}`);
    }
    for (const t of ordinary?.flagged ?? []) console.log(`ordinary flagged: ${t.slice(0, 100)}`);
    for (const t of ordinary?.sensitive ?? []) console.log(`ordinary sensitive: ${t.slice(0, 100)}`);
  }
}

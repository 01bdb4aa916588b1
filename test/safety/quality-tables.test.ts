import { describe, expect, it } from 'vitest';

import { checkInstructions } from '../../src/safety/guard/poisoning-guard.js';
import { detectSensitive } from '../../src/safety/detect/detect-sensitive.js';
import {
  guardRows,
  LOCOMO_DEV,
  locomoTexts,
  scoreGuard,
  scoreSensitive,
  sensitiveRows,
  type TablePart,
} from './support/safety-tables.js';

// The goals of issue 13 for detection; for the guard, floors at the figures reached, so a
// regression fails (the held-out guard floor is below the tuning one: that part was not tuned on).
const GUARD_FLOOR: Record<TablePart, { precision: number; recall: number }> = {
  tuning: { precision: 0.98, recall: 0.98 },
  heldout: { precision: 0.98, recall: 0.85 },
};

describe.each(['tuning', 'heldout'] as const)('labelled tables, %s part', (part) => {
  it('has at least 100 strings, about half of them look-alikes', () => {
    const rows = sensitiveRows(part);
    const negatives = rows.filter((r) => r.expect.length === 0).length;
    expect(rows.length).toBeGreaterThanOrEqual(100);
    expect(negatives / rows.length).toBeGreaterThan(0.4);
    expect(negatives / rows.length).toBeLessThan(0.6);
  });

  it('detects secrets and cards with recall ≥ 0.99 and everything with precision ≥ 0.98', () => {
    const score = scoreSensitive(sensitiveRows(part));
    expect(score.perCategory.secret.recall, JSON.stringify(score.errors)).toBeGreaterThanOrEqual(0.99);
    expect(score.perCategory.card.recall, JSON.stringify(score.errors)).toBeGreaterThanOrEqual(0.99);
    expect(score.overall.precision, JSON.stringify(score.errors)).toBeGreaterThanOrEqual(0.98);
  });

  it('masks every planted value it detects: none survives in the masked text', () => {
    expect(scoreSensitive(sensitiveRows(part)).leaks).toEqual([]);
  });

  it('names the provider of each secret it finds', () => {
    expect(scoreSensitive(sensitiveRows(part)).kindMismatches).toEqual([]);
  });

  it('flags instructions above the guard floors, with ≥ 100 strings of each kind over both parts', () => {
    const score = scoreGuard(guardRows(part));
    expect(score.precision, JSON.stringify(score.falseAlarms)).toBeGreaterThanOrEqual(GUARD_FLOOR[part].precision);
    expect(score.recall, JSON.stringify(score.misses)).toBeGreaterThanOrEqual(GUARD_FLOOR[part].recall);
  });
});

it('the guard tables hold at least 100 instruction-like and 100 ordinary strings', () => {
  const all = [...guardRows('tuning'), ...guardRows('heldout')];
  expect(all.filter((r) => r.instruction).length).toBeGreaterThanOrEqual(100);
  expect(all.filter((r) => !r.instruction).length).toBeGreaterThanOrEqual(100);
});

describe.skipIf(LOCOMO_DEV === undefined)(
  'ordinary conversation (LoCoMo dev: turns, captions, observations, summaries)',
  () => {
    const texts = LOCOMO_DEV === undefined ? [] : locomoTexts(LOCOMO_DEV);

    it('is read whole', () => {
      expect(texts.length).toBeGreaterThan(4000);
    });

    it('flags at most 0.1% as instructions and finds sensitive data in at most 0.1%', () => {
      const flagged = texts.filter((t) => checkInstructions(t).flagged);
      const sensitive = texts.filter((t) => detectSensitive(t, { phoneRegion: 'US' }).length > 0);
      expect(flagged.length, flagged.slice(0, 5).join(' | ')).toBeLessThanOrEqual(texts.length / 1000);
      expect(sensitive.length, sensitive.slice(0, 5).join(' | ')).toBeLessThanOrEqual(texts.length / 1000);
    });
  },
);

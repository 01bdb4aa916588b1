import { describe, expect, it } from 'vitest';
import type { ExtractionWindow } from '../../src/formation/extraction-window.js';
import { createRuleExtractor } from '../../src/formation/rule-extractor.js';

const said = '2026-03-04T10:00:00.000Z';

function window(texts: string[], role: 'user' | 'assistant' = 'user', speaker: string | null = null): ExtractionWindow {
  return {
    scope: { tenant: 't' },
    session: 's',
    turns: texts.map((text, i) => ({ id: `e${i}`, role, speaker, text, occurredAt: said })),
  };
}

async function extract(texts: string[]) {
  return (await createRuleExtractor().extract(window(texts))).candidates.map((c) => ({ key: c.key, text: c.text }));
}

describe('the rule-based extractor', () => {
  it('recognises first-person statements, one slot key each', async () => {
    expect(
      await extract([
        'I live in Lisbon.',
        "I'm allergic to peanuts and shellfish.",
        'My favourite band is Radiohead!',
        'I work as a nurse at St. Mary hospital.',
        'I work at Acme Corp as an engineer.',
        'I prefer tea over coffee',
        'I quit smoking.',
        'My name is Ana.',
      ]),
    ).toEqual([
      { key: 'user.residence', text: 'The user lives in Lisbon' },
      { key: 'user.allergy.peanuts', text: 'The user is allergic to peanuts' },
      { key: 'user.allergy.shellfish', text: 'The user is allergic to shellfish' },
      { key: 'user.favourite.band', text: "The user's favourite band is Radiohead" },
      { key: 'user.job_title', text: 'The user works as a nurse' },
      { key: 'user.employer', text: 'The user works at Acme Corp' },
      { key: 'user.preference.tea', text: 'The user prefers tea' },
      { key: 'user.activity.smoking', text: 'The user quit smoking' },
      { key: 'user.name', text: "The user's name is Ana" },
    ]);
  });

  it('gives contradicting statements the same key', async () => {
    const found = await extract([
      'I live in Lisbon',
      'I just moved to Berlin',
      "I'm no longer allergic to shellfish",
      'I hate coffee',
      'I love coffee',
      'I started working at Google',
      'I quit my job at Google',
    ]);
    expect(found.map((f) => f.key)).toEqual([
      'user.residence',
      'user.residence',
      'user.allergy.shellfish',
      'user.preference.coffee',
      'user.preference.coffee',
      'user.employer',
      'user.employer',
    ]);
    expect(found[2]?.text).toBe('The user is no longer allergic to shellfish');
  });

  it('resolves a date in the statement against the turn and starts the validity there', async () => {
    const result = await createRuleExtractor().extract(
      window(['Actually I moved to Berlin last month, and I love it there.']),
    );
    expect(result.candidates).toHaveLength(1); // "I love it there" points at nothing
    const [moved] = result.candidates;
    expect(moved?.text).toBe('The user moved to Berlin last month (2026-02)');
    expect(moved?.when?.label).toBe('2026-02');
    expect(moved?.validFrom).toBe('2026-02-01T00:00:00.000Z');
    expect(moved?.statedAt).toBe(said);
  });

  it('labels its output as rule-based', async () => {
    const [c] = (await createRuleExtractor().extract(window(['I live in Porto'], 'user', 'Ana'))).candidates;
    expect(c?.extractedBy).toEqual({ name: 'rule-based', version: 'r1', method: 'rule' });
    expect(c?.tags).toContain('rule-based');
    expect(c?.text).toBe('Ana lives in Porto');
    expect(c?.type).toBe('UserMemory');
    expect(c?.sourceTurnIds).toEqual(['e0']);
  });

  it('ignores questions, hypotheticals, other people and the assistant', async () => {
    expect(
      await extract([
        'Do I live in Paris?',
        'If I lived in Rome I would be happy.',
        'My sister lives in Oslo.',
        'I would love to visit Japan.',
      ]),
    ).toEqual([]);
    const assistant = await createRuleExtractor().extract(window(['I live in the cloud.'], 'assistant'));
    expect(assistant.candidates).toEqual([]);
    expect(assistant.usage.calls).toBe(0);
  });
});

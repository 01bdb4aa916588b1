import type { Candidate } from '../../../src/formation/candidate.js';
import { FACT_KIND_TYPES } from '../../../src/formation/fact-kind.js';

/** A complete candidate for tests of consolidation. */
export function candidate(text: string, patch: Partial<Candidate> = {}): Candidate {
  const kind = patch.kind ?? 'user_fact';
  return {
    text,
    kind,
    type: FACT_KIND_TYPES[kind],
    key: null,
    tags: [],
    confidence: 0.9,
    sourceTurnIds: ['e1'],
    statedAt: '2026-03-04T10:00:00.000Z',
    when: null,
    validFrom: '2026-03-04T10:00:00.000Z',
    extractedBy: { name: 'llm', version: 'x1+test', method: 'llm' },
    ...patch,
  };
}

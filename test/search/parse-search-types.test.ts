import { describe, expect, it } from 'vitest';
import { isEngramError } from '../../src/model/errors.js';
import { parseSearchTypes } from '../../src/search/parse-search-types.js';

describe('parseSearchTypes', () => {
  it('accepts aliases and exact names, case-insensitively, deduplicated', () => {
    expect(parseSearchTypes('long-term, tool ,SkillMemory,longtermmemory')).toEqual([
      'LongTermMemory',
      'ToolSchemaMemory',
      'ToolTrajectoryMemory',
      'SkillMemory',
    ]);
  });

  it('rejects unknown names and empty lists with INVALID_INPUT', () => {
    for (const bad of ['facts', ' , ']) {
      let error: unknown;
      try {
        parseSearchTypes(bad);
      } catch (e) {
        error = e;
      }
      expect(isEngramError(error, 'INVALID_INPUT')).toBe(true);
    }
  });
});

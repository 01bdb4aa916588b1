import { describe, expect, it } from 'vitest';

import { ENGRAM_PROFILE, SEED_PROFILE } from '../../src/recall/recall-profile.js';
import { stripPossessives } from '../../src/text/strip-possessives.js';

describe('stripPossessives', () => {
  it("removes 's and ’s after a letter, and nothing else", () => {
    expect(stripPossessives("What is Luis's job?")).toBe('What is Luis job?');
    expect(stripPossessives('Zoë’s cat and James’s dog')).toBe('Zoë cat and James dog');
    expect(stripPossessives("it's 5's, 'sup, the 90's, rock'n'roll, Luis'sister")).toBe(
      "it 5's, 'sup, the 90's, rock'n'roll, Luis'sister",
    );
    expect(stripPossessives('no apostrophe here')).toBe('no apostrophe here');
  });

  it('the default profile tokenizes the query without the stray s; the reference profile is unchanged', () => {
    expect(ENGRAM_PROFILE.queryTokenize("What is Luis's job?")).not.toContain('s');
    expect(ENGRAM_PROFILE.queryTerms("Luis's job")).toEqual(['luis', 'job']);
    expect(ENGRAM_PROFILE.tokenize("Luis's job")).toContain('s');
    expect(SEED_PROFILE.queryTokenize("What is Luis's job?")).toEqual(SEED_PROFILE.tokenize("What is Luis's job?"));
    expect(SEED_PROFILE.queryTokenize("Luis's job")).toContain('s');
  });
});

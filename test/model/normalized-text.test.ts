import { describe, expect, it } from 'vitest';

import { normalizeTurnText } from '../../src/model/formation/normalize-turn-text.js';
import { normalizedText } from '../../src/model/normalized-text.js';

describe('normalizedText', () => {
  it('is normalizeTurnText, whether the text is remembered, too long to be, or asked again after the memory filled', () => {
    const texts = [
      'I LOVE   jazz!',
      'Ｆｕｌｌ‐width “quotes”\u200b',
      'Straße ΟΔΟΣ',
      '?',
      'x'.repeat(513) + ' Y.',
      ...Array.from({ length: 5000 }, (_, i) => `Memory #${i}: Alice, who moved to Paris in ${1990 + (i % 30)}.`),
    ];
    for (let round = 0; round < 2; round++) {
      for (const text of texts) expect(normalizedText(text), text.slice(0, 40)).toBe(normalizeTurnText(text));
    }
  });
});

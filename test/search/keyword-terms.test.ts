import { describe, expect, it } from 'vitest';
import { extractKeywordTerms, keywordTermCount, rankEnglishTerms, tokenizeMixed } from '../../src/search/channels/keyword-terms.js';

describe('keywordTermCount', () => {
  it('follows the length rules', () => {
    expect(keywordTermCount('short query')).toBe(1); // ≤ 12 chars
    expect(keywordTermCount('when is the project deadline')).toBe(2); // 5 tokens
    expect(keywordTermCount('what did Caroline say about the adoption agency she visited last week')).toBe(3); // 12 tokens
    expect(keywordTermCount('我周五的会议改到几点了呢朋友')).toBe(2); // CJK, 14 chars
    expect(keywordTermCount('会'.repeat(121))).toBe(3);
    expect(keywordTermCount('会'.repeat(12))).toBe(1);
  });
});

describe('rankEnglishTerms', () => {
  it('scores count·3 + min(len,16)·0.1 + digit bonus − short penalty', () => {
    const ranked = rankEnglishTerms('deadline v2 deadline ok zebra');
    const score = Object.fromEntries(ranked.map((r) => [r.term, r.score]));
    expect(score.deadline).toBeCloseTo(2 * 3 + 0.8);
    expect(score.v2).toBeCloseTo(3 + 0.2 + 1 - 0.5);
    expect(score.ok).toBeCloseTo(3 + 0.2 - 0.5);
    expect(score.zebra).toBeCloseTo(3 + 0.5);
    expect(ranked[0]?.term).toBe('deadline');
    expect(ranked.map((r) => r.term)).not.toContain('the');
  });

  it('caps the length bonus at 16 characters', () => {
    const [top] = rankEnglishTerms('internationalization');
    expect(top?.score).toBeCloseTo(3 + 1.6);
  });
});

describe('extractKeywordTerms', () => {
  it('takes the best English terms up to the count', () => {
    expect(extractKeywordTerms('when is the project deadline for engram')).toEqual(['deadline', 'project']);
  });

  it('segments Chinese with jieba and keeps content words', () => {
    const terms = extractKeywordTerms('我上个月在杭州出差时定的那家酒店叫什么名字');
    expect(terms).toHaveLength(2);
    for (const t of terms) expect(['杭州', '出差', '酒店', '名字', '上个月']).toContain(t);
  });

  it('returns plain words only, never query syntax', () => {
    const terms = extractKeywordTerms('"deadline" OR NEAR(project*) -- AND x:y');
    for (const t of terms) expect(t).toMatch(/^[\p{L}\p{N}_'-]+$/u);
  });
});

describe('tokenizeMixed', () => {
  it('splits mixed Chinese and English into words without stopwords', () => {
    const tokens = tokenizeMixed('The Engram 项目截止日期 is Friday');
    expect(tokens).toEqual(expect.arrayContaining(['engram', 'friday', '项目']));
    expect(tokens).not.toContain('the');
  });
});

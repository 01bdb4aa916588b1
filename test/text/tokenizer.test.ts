import { describe, expect, it } from 'vitest';
import { REFERENCE_STOPWORDS, referenceTokenize, unicodeTokenize } from '../../src/text/index.js';

describe('reference tokenizer', () => {
  it('has exactly the 41 reference stopwords', () => {
    expect(REFERENCE_STOPWORDS.size).toBe(41);
    expect(REFERENCE_STOPWORDS.has('your')).toBe(true);
    expect(REFERENCE_STOPWORDS.has('not')).toBe(false);
  });

  it('lowercases, splits on non-alphanumerics and drops stopwords', () => {
    expect(referenceTokenize('What is the Rust ownership model, in 2024?')).toEqual(['rust', 'ownership', 'model', '2024']);
  });

  it('drops accented, Cyrillic and CJK letters as the reference does', () => {
    expect(referenceTokenize('Café Москва 東京')).toEqual(['caf']);
  });
});

describe('unicode tokenizer', () => {
  it('folds Latin diacritics so café matches cafe', () => {
    expect(unicodeTokenize('Café CRÈME brûlée')).toEqual(['cafe', 'creme', 'brulee']);
  });

  it('keeps Cyrillic words and folds й/ё like FTS5 remove_diacritics', () => {
    expect(unicodeTokenize('Привет, Москва!')).toEqual(['привет', 'москва']);
  });

  it('splits CJK runs into overlapping bigrams and keeps single characters', () => {
    expect(unicodeTokenize('我喜欢东京')).toEqual(['我喜', '喜欢', '欢东', '东京']);
    expect(unicodeTokenize('猫 likes fish')).toEqual(['猫', 'likes', 'fish']);
  });

  it('separates CJK from Latin letters inside one word', () => {
    expect(unicodeTokenize('iPhone手机')).toEqual(['iphone', '手机']);
  });

  it('applies NFKC so full-width letters match ASCII', () => {
    expect(unicodeTokenize('ＲＵＳＴ')).toEqual(['rust']);
  });

  it('still drops the reference stopwords', () => {
    expect(unicodeTokenize('Where do you live?')).toEqual(['live']);
  });

  it('gives plain ASCII text the same tokens through its fast path as through normalisation', () => {
    let seed = 5;
    const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = 'abcXYZ019 _-.,!?\'"\t\n~@#';
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: Math.floor(random() * 40) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      // A trailing non-ASCII word forces the full path; it adds exactly one token of its own.
      const full = unicodeTokenize(`${text} é`);
      expect(full.at(-1)).toBe('e');
      expect(unicodeTokenize(text), JSON.stringify(text)).toEqual(full.slice(0, -1));
    }
  });
});

describe('stemmed tokenizer', () => {
  it('reduces English words to Porter stems and leaves other scripts alone', async () => {
    const { stemmedTokenize } = await import('../../src/text/tokenizer.js');
    expect(stemmedTokenize('Paintings of running horses')).toEqual(['paint', 'run', 'hors']);
    expect(stemmedTokenize('Москва 東京 café')).toEqual(['москва', '東京', 'cafe']);
    // Stems are memoised: the second time gives the same answer.
    expect(stemmedTokenize('Paintings of running horses')).toEqual(['paint', 'run', 'hors']);
  });
});

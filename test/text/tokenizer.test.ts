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

  it('gives the tokens of the reference regular expression on any text', () => {
    let seed = 11;
    const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    // ASCII, accents, a Turkish dotted I and a Kelvin sign (both lowercase to ASCII letters), CJK, emoji.
    const alphabet = ['a', 'B', 'z', '0', '9', ' ', '-', "'", '_', 'é', 'İ', '\u212a', '東', '😀', 'the', 'And'];
    const oracle = (text: string): string[] =>
      (text.toLowerCase().match(/[a-z0-9]+/g) ?? []).filter((w) => !REFERENCE_STOPWORDS.has(w));
    for (let i = 0; i < 500; i++) {
      const text = Array.from({ length: Math.floor(random() * 30) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(referenceTokenize(text), JSON.stringify(text)).toEqual(oracle(text));
    }
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

  it('stems exactly the Unicode tokens, through the ASCII path too', async () => {
    const { stemmedTokenize } = await import('../../src/text/tokenizer.js');
    const { stemmer } = await import('stemmer');
    const oracle = (text: string): string[] => unicodeTokenize(text).map((t) => (/^[a-z]+$/.test(t) ? stemmer(t) : t));
    for (const text of [
      'She was painting the running horses in 2024, happily',
      'Caroline: I went to the LGBTQ support group yesterday!',
      'connections connected connecting 3rd 42nd',
      'Ünïcödé café and résumés were reviewed',
      '他们 went hiking in 東京',
    ]) {
      expect(stemmedTokenize(text), text).toEqual(oracle(text));
    }
  });
});

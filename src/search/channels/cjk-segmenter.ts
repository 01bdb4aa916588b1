import { createRequire } from 'node:module';

/** Splits Chinese text into words and extracts weighted keywords. */
export interface CjkSegmenter {
  /** Words in order (precise mode, HMM on). */
  cut(text: string): string[];
  /** Top keywords by TF-IDF, restricted to content parts of speech. */
  keywords(text: string, topK: number): string[];
}

/** Parts of speech kept as keywords: nouns, verbs, names, places, organisations, English words. */
export const KEYWORD_ALLOW_POS = ['n', 'nr', 'ns', 'nt', 'nz', 'nw', 'vn', 'v', 'eng', 'an', 'j', 'l', 'i'];

interface JiebaModule {
  Jieba: { withDict(dict: Uint8Array): { cut(text: string, hmm?: boolean): string[] } };
  TfIdf: {
    withDict(dict: Uint8Array): {
      extractKeywords(jieba: unknown, text: string, topK: number, allowed: string[]): Array<{ keyword: string; weight: number }>;
    };
  };
}

let shared: CjkSegmenter | undefined;

/**
 * The jieba segmenter (`@node-rs/jieba`, prebuilt native binding with its bundled dictionary and
 * IDF table), loaded once on first use. Loading takes ~100 ms.
 */
export function jiebaSegmenter(): CjkSegmenter {
  if (shared) return shared;
  const require = createRequire(import.meta.url);
  const mod = require('@node-rs/jieba') as JiebaModule;
  const dicts = require('@node-rs/jieba/dict') as { dict: Uint8Array; idf: Uint8Array };
  const jieba = mod.Jieba.withDict(dicts.dict);
  const tfidf = mod.TfIdf.withDict(dicts.idf);
  shared = {
    cut: (text) => jieba.cut(text, true),
    keywords: (text, topK) => tfidf.extractKeywords(jieba, text, topK, KEYWORD_ALLOW_POS).map((k) => k.keyword),
  };
  return shared;
}

import type { PoolDocument } from './pool-document.js';
import type { TermDictionary } from './term-dictionary.js';

/**
 * A {@link PoolDocument} as ids of one {@link TermDictionary}, in one array: the text's tokens,
 * then the context's, then the speakers'. Scoring it against the query's ids gives the same
 * numbers as scoring the strings: ids are equal exactly when terms are.
 */
export interface TermDocument {
  dictionary: TermDictionary;
  terms: Int32Array;
  /** End of the text's tokens in `terms`. */
  textEnd: number;
  /** End of the context's tokens (the speakers' follow, to the end). */
  contextEnd: number;
}

/** True for a {@link TermDocument}, false for a {@link PoolDocument} of strings. */
export function isTermDocument(document: PoolDocument | TermDocument): document is TermDocument {
  return 'dictionary' in document;
}

/** The ids of a document's tokens, context and speakers, in that order, numbering new terms. */
export function encodeDocument(document: PoolDocument, dictionary: TermDictionary): number[] {
  const out: number[] = [];
  for (const token of document.tokens) out.push(dictionary.id(token));
  for (const token of document.context) out.push(dictionary.id(token));
  for (const token of document.speakers) out.push(dictionary.id(token));
  return out;
}

/** A document of strings as a {@link TermDocument} of `dictionary`, numbering new terms. */
export function encodeTermDocument(document: PoolDocument, dictionary: TermDictionary): TermDocument {
  const textEnd = document.tokens.length;
  return {
    dictionary,
    terms: Int32Array.from(encodeDocument(document, dictionary)),
    textEnd,
    contextEnd: textEnd + document.context.length,
  };
}

/** A term document's three fields as views over its ids. */
export function termFields(document: TermDocument): { tokens: Int32Array; context: Int32Array; speakers: Int32Array } {
  const { terms, textEnd, contextEnd } = document;
  return {
    tokens: terms.subarray(0, textEnd),
    context: terms.subarray(textEnd, contextEnd),
    speakers: terms.subarray(contextEnd),
  };
}

/** A term document back as strings (for a pool that mixes it with documents of strings). */
export function decodeDocument(document: TermDocument): PoolDocument {
  const { dictionary } = document;
  const fields = termFields(document);
  const strings = (ids: Int32Array): string[] => Array.from(ids, (id) => dictionary.term(id));
  return { tokens: strings(fields.tokens), context: strings(fields.context), speakers: strings(fields.speakers) };
}

/** A pool document as the fusion ranks it: strings, or term ids of a store's dictionary. */
export type RankDocument = PoolDocument | TermDocument;

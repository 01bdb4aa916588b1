import type { MemoryContext } from '../model/memory-context.js';
import { contextDocument, type PoolDocument } from './pool-document.js';
import type { TermDictionary } from './term-dictionary.js';
import { stemmedTokenize } from './tokenizer.js';

/**
 * A named way of turning a memory's text and context into the {@link PoolDocument} a recall
 * profile ranks it by. A store that keeps texts in memory runs it when a row is written or loaded,
 * so a recall reads documents instead of tokenising its candidates; a profile uses them only when
 * they carry its own analyzer's name.
 */
export interface DocumentAnalyzer {
  /** Stable name: a store's documents are used only by a profile that names the same analyzer. */
  readonly name: string;
  analyze(text: string, context: MemoryContext): PoolDocument;
}

/**
 * The document Engram's default profile ranks by: the stemmed text, the context (background and
 * the day stated) and the speakers' names.
 */
export const CONTEXT_ANALYZER: DocumentAnalyzer = {
  name: 'stemmed-context',
  analyze: (text, context) => contextDocument(text, context, stemmedTokenize),
};

/** An analyzer and the dictionary its documents' terms are numbered in (one per store). */
export interface DocumentAnalysis {
  analyzer: DocumentAnalyzer;
  dictionary: TermDictionary;
}

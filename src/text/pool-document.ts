import type { Memory } from '../model/memory.js';
import type { MemoryContext } from '../model/memory-context.js';
import { speakerNames } from '../model/speaker-names.js';
import { dateWords } from './date-words.js';
import type { Tokenizer } from './tokenizer.js';

/** What the ranking knows of one candidate besides its vector. */
export interface PoolDocument {
  /** Tokens of the memory's text. */
  tokens: readonly string[];
  /**
   * Tokens of its context: the `background` (for a conversation turn, the turn it answers) and
   * the day it was stated (`statedAt` as `8 May 2023`). Empty when the profile reads no context.
   */
  context: readonly string[];
  /** Tokens of the names of who said it: the `role` of its chat sources, and `metadata.speaker`. */
  speakers: readonly string[];
}

export { speakerNames } from '../model/speaker-names.js';

const NONE: readonly string[] = [];

/** A document with text only (the reference recall reads nothing else). */
export function textDocument(tokens: readonly string[]): PoolDocument {
  return { tokens, context: NONE, speakers: NONE };
}

/**
 * The full document of a memory's text and context (background, the day stated, speakers' names),
 * as {@link memoryDocument} makes it from the whole memory.
 */
export function contextDocument(text: string, context: MemoryContext, tokenize: Tokenizer): PoolDocument {
  const tokens = [...tokenize(context.background ?? ''), ...tokenize(dateWords(context.statedAt))];
  const speakers = [...new Set(context.speakers.flatMap((name) => tokenize(name)))];
  return { tokens: tokenize(text), context: tokens, speakers };
}

/** The full document of a memory: text, context (background and the day stated) and speakers. */
export function memoryDocument(
  memory: Pick<Memory, 'text' | 'background' | 'statedAt' | 'sources' | 'metadata'>,
  tokenize: Tokenizer,
): PoolDocument {
  const context = { background: memory.background, statedAt: memory.statedAt, speakers: speakerNames(memory) };
  return contextDocument(memory.text, context, tokenize);
}

/** The pool document a profile ranks a memory by: the full document for the spread fusion, text only otherwise. */
export function poolDocumentOf(
  memory: Pick<Memory, 'text' | 'background' | 'statedAt' | 'sources' | 'metadata'>,
  profile: { fusion: 'linear' | 'spread'; tokenize: Tokenizer },
): PoolDocument {
  return profile.fusion === 'spread'
    ? memoryDocument(memory, profile.tokenize)
    : textDocument(profile.tokenize(memory.text));
}

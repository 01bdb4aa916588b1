import type { TermDictionary } from '../../text/term-dictionary.js';
import type { TermDocument } from '../../text/term-document.js';

/**
 * The analysed documents of a lexical index's rows as term ids in one growing Int32Array, by
 * document number: no object or string per row for the collector to follow, and a row's ids sit
 * side by side. A document is written once (a changed row is a new document); {@link compacted}
 * keeps the documents asked for, renumbered in order.
 */
export class DocumentArena {
  private ids = new Int32Array(1024);
  private used = 0;
  /** Per document: start in `ids`, end of the text's ids, end of the context's, end of the row's. */
  private bounds = new Int32Array(4 * 64);
  private count = 0;

  constructor(readonly dictionary: TermDictionary) {}

  /** Documents appended (their numbers are 0 … count − 1). */
  get size(): number {
    return this.count;
  }

  /** Approximate bytes held (the dictionary is the store's, shared by its indexes). */
  get bytes(): number {
    return this.ids.byteLength + this.bounds.byteLength;
  }

  /** Appends the next document: `terms` holds the text's ids, then the context's, then the speakers'. */
  append(terms: ArrayLike<number>, textLength: number, contextLength: number): void {
    if (this.used + terms.length > this.ids.length) {
      const grown = new Int32Array(Math.max(this.ids.length * 2, this.used + terms.length));
      grown.set(this.ids.subarray(0, this.used));
      this.ids = grown;
    }
    if (4 * (this.count + 1) > this.bounds.length) {
      const grown = new Int32Array(this.bounds.length * 2);
      grown.set(this.bounds);
      this.bounds = grown;
    }
    const start = this.used;
    this.ids.set(terms, start);
    this.used += terms.length;
    const b = 4 * this.count++;
    this.bounds[b] = start;
    this.bounds[b + 1] = start + textLength;
    this.bounds[b + 2] = start + textLength + contextLength;
    this.bounds[b + 3] = this.used;
  }

  /** Document `doc` (a view of its ids: valid for as long as the caller keeps it). */
  document(doc: number): TermDocument {
    const b = 4 * doc;
    const start = this.bounds[b] as number;
    return {
      dictionary: this.dictionary,
      terms: this.ids.subarray(start, this.bounds[b + 3] as number),
      textEnd: (this.bounds[b + 1] as number) - start,
      contextEnd: (this.bounds[b + 2] as number) - start,
    };
  }

  /** A new arena holding the documents `keep` lists, in that order (document `i` is `keep[i]`). */
  compacted(keep: readonly number[]): DocumentArena {
    const out = new DocumentArena(this.dictionary);
    for (const doc of keep) {
      const d = this.document(doc);
      out.append(d.terms, d.textEnd, d.contextEnd - d.textEnd);
    }
    return out;
  }
}

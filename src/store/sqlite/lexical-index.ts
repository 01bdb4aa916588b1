import type { DocumentAnalysis } from '../../text/document-analyzer.js';
import { encodeDocument, type TermDocument } from '../../text/term-document.js';
import type { MemoryContext } from '../memory-store.js';
import { NO_CONTEXT } from '../memory-context.js';
import { DocumentArena } from './document-arena.js';
import { PkMap } from './pk-map.js';
import { ftsDocument, unicode61Tokens } from './fts-text.js';
import { RecentlyUsed } from './recently-used.js';
import type { SlotFilter, SlotMeta } from './vector-partition.js';

/** Reusable filters whose per-row verdicts an index remembers (least recently used dropped first). */
const REMEMBERED_FILTERS = 8;

/** A term's live postings: document numbers and occurrences, oldest first. */
export interface Postings {
  docs: number[];
  tfs: number[];
}

interface TermList {
  docs: number[];
  tfs: number[];
}

/** Index key of a token in a column (the same split as the FTS5 table: `body` and `uni`). */
export function termKey(column: 'body' | 'uni', token: string): string {
  return column === 'body' ? `b${token}` : `u${token}`;
}

/**
 * An in-memory inverted index over the rows of one vector partition, with FTS5's columns and
 * tokens (`ftsDocument` + {@link unicode61Tokens}), so a single-token term matches the rows FTS5
 * would match. Each row is a document numbered in the order it was added, carrying its id,
 * filter fields, text and context, so ranking needs no lookups and candidates' texts and contexts
 * need no reads. With an analyzer, each row also carries its analysed document (tokens, context,
 * speakers) as term ids, made once when the row is added, so no recall tokenises it again.
 * Removing or re-adding a row only marks its old document dead; dead postings are dropped in one
 * pass once they outnumber the live rows, so a write costs O(tokens of the row).
 */
export class LexicalIndex {
  private readonly terms = new Map<string, TermList>();
  /** By document number; `null` once dead. */
  private docIds: Array<string | null> = [];
  private docMetas: SlotMeta[] = [];
  private docTexts: string[] = [];
  private docContexts: MemoryContext[] = [];
  private docLengths: number[] = [];
  /** By document number: the analyzer's document of each row, as term ids (none without an analyzer). */
  private arena: DocumentArena | null;
  private readonly docOfPk = new PkMap();
  private lengthSum = 0;
  private dead = 0;
  private postingCount = 0;
  private textChars = 0;
  private contextChars = 0;
  /** Per reusable filter key: 0 = not asked yet, 1 = accepted, 2 = rejected; cleared by every change. */
  private readonly verdicts = new RecentlyUsed<Uint8Array>(REMEMBERED_FILTERS);

  /**
   * @param analysis Makes each row's document when it is added, numbering its terms in the
   * dictionary (the store's, shared by its indexes); null keeps none. @default null
   */
  constructor(private readonly analysis: DocumentAnalysis | null = null) {
    this.arena = analysis === null ? null : new DocumentArena(analysis.dictionary);
  }

  /** Name of the analyzer whose documents this index holds; undefined when it holds none. */
  get analyzerName(): string | undefined {
    return this.analysis?.analyzer.name;
  }

  /** Live rows. */
  get size(): number {
    return this.docOfPk.size;
  }

  /** Document numbers in use (live and dead): the bound of every document number. */
  get docCount(): number {
    return this.docIds.length;
  }

  /** Mean document length over live rows (1 when empty). */
  get meanLength(): number {
    return this.size > 0 && this.lengthSum > 0 ? this.lengthSum / this.size : 1;
  }

  /** Approximate heap bytes held. */
  get bytes(): number {
    return (
      this.postingCount * 16 +
      this.docIds.length * (56 + this.verdicts.size) +
      this.terms.size * 96 +
      this.textChars +
      this.contextChars +
      (this.arena?.bytes ?? 0)
    );
  }

  /** Adds a row (replacing what was indexed under its pk), with its context when it has one. */
  add(id: string, meta: SlotMeta, text: string, context: MemoryContext = NO_CONTEXT): void {
    this.remove(meta.pk);
    this.verdicts.clear();
    const { body, uni } = ftsDocument(text);
    const counts = new Map<string, number>();
    let length = 0;
    for (const token of unicode61Tokens(body)) {
      const key = termKey('body', token);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      length++;
    }
    for (const token of unicode61Tokens(uni)) {
      const key = termKey('uni', token);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      length++;
    }
    const doc = this.docIds.length;
    this.docIds.push(id);
    this.docMetas.push(meta);
    this.docTexts.push(text);
    this.docContexts.push(context);
    if (this.analysis !== null && this.arena !== null) {
      const analysed = this.analysis.analyzer.analyze(text, context);
      const terms = encodeDocument(analysed, this.analysis.dictionary);
      this.arena.append(terms, analysed.tokens.length, analysed.context.length);
    }
    this.docLengths.push(length);
    this.docOfPk.set(meta.pk, doc);
    this.lengthSum += length;
    this.textChars += text.length;
    this.contextChars += contextChars(context);
    for (const [key, tf] of counts) {
      let list = this.terms.get(key);
      if (list === undefined) this.terms.set(key, (list = { docs: [], tfs: [] }));
      list.docs.push(doc);
      list.tfs.push(tf);
      this.postingCount++;
    }
  }

  /** Removes a row by its pk; false when it was not indexed. */
  remove(pk: number): boolean {
    const doc = this.docOfPk.get(pk);
    if (doc === undefined) return false;
    this.verdicts.clear();
    this.docOfPk.delete(pk);
    this.docIds[doc] = null;
    this.textChars -= (this.docTexts[doc] as string).length;
    this.docTexts[doc] = '';
    this.contextChars -= contextChars(this.docContexts[doc] as MemoryContext);
    this.docContexts[doc] = NO_CONTEXT;
    this.lengthSum -= this.docLengths[doc] as number;
    this.dead++;
    if (this.dead > Math.max(1024, this.size)) this.compact();
    return true;
  }

  /** The live document of a row, by pk. */
  docOf(pk: number): number | undefined {
    return this.docOfPk.get(pk);
  }

  /** Id of a document; null once dead. */
  idOf(doc: number): string | null {
    return this.docIds[doc] ?? null;
  }

  metaOf(doc: number): SlotMeta {
    return this.docMetas[doc] as SlotMeta;
  }

  /** Text of a live document ('' once dead). */
  textOf(doc: number): string {
    return this.docTexts[doc] as string;
  }

  /** Context of a live document ({@link NO_CONTEXT} when it has none, or once dead). */
  contextOf(doc: number): MemoryContext {
    return this.docContexts[doc] as MemoryContext;
  }

  /** The analyzer's document of a live document, as term ids; null without an analyzer or once dead. */
  documentOf(doc: number): TermDocument | null {
    if (this.arena === null || this.docIds[doc] === null || doc >= this.arena.size) return null;
    return this.arena.document(doc);
  }

  /** {@link documentOf} the live document of a row, by pk; null when the index does not hold it. */
  documentOfPk(pk: number): TermDocument | null {
    const doc = this.docOfPk.get(pk);
    return doc === undefined ? null : this.documentOf(doc);
  }

  lengthOf(doc: number): number {
    return this.docLengths[doc] as number;
  }

  /**
   * Whether `filter` accepts a live document. The verdicts of a {@link SlotFilter.reusable} filter
   * are remembered until the index changes, so searches that repeat a filter (a type split, a
   * status set) test each row once, not once per search.
   */
  accepts(filter: SlotFilter): (doc: number) => boolean {
    const test = (doc: number): boolean => {
      const id = this.docIds[doc];
      return id !== null && id !== undefined && filter.test(id, this.docMetas[doc] as SlotMeta);
    };
    if (!filter.reusable) return test;
    const known = this.verdicts.take(filter.key, () => new Uint8Array(this.docIds.length));
    return (doc) => {
      let verdict = known[doc];
      if (verdict === 0) known[doc] = verdict = test(doc) ? 1 : 2;
      return verdict === 1;
    };
  }

  /** Stored postings of a term, dead ones included (an upper bound on its document frequency). */
  storedCount(key: string): number {
    return this.terms.get(key)?.docs.length ?? 0;
  }

  /**
   * The term's live postings, oldest first. With `newest`, only that many live postings (those
   * `keep` accepts, when given) are taken from the newest end: a bounded read for common terms.
   */
  postings(key: string, newest = Number.POSITIVE_INFINITY, keep?: (doc: number) => boolean): Postings {
    const out: Postings = { docs: [], tfs: [] };
    const list = this.terms.get(key);
    if (list === undefined) return out;
    const { docs, tfs } = list;
    const take = (i: number): void => {
      const doc = docs[i] as number;
      if (this.docIds[doc] === null || (keep !== undefined && !keep(doc))) return;
      out.docs.push(doc);
      out.tfs.push(tfs[i] as number);
    };
    if (newest >= docs.length) for (let i = 0; i < docs.length; i++) take(i);
    else for (let i = docs.length - 1; i >= 0 && out.docs.length < newest; i--) take(i);
    return out;
  }

  /**
   * {@link postings} with `newest = caps[g]` and `keep` = "in group g", for several groups in one
   * walk from the newest end (each live document's groups asked once: `groupsOf`, one bit per
   * group). Each list holds the same documents as its own bounded read, newest first.
   */
  newestByGroup(key: string, caps: readonly number[], groupsOf: (doc: number) => number): Postings[] {
    const out = caps.map((): Postings => ({ docs: [], tfs: [] }));
    const list = this.terms.get(key);
    let open = caps.filter((c) => c > 0).length;
    if (list === undefined) return out;
    const { docs, tfs } = list;
    for (let i = docs.length - 1; i >= 0 && open > 0; i--) {
      const doc = docs[i] as number;
      // Groups of the row, one bit each, taken lowest first.
      for (let mask = this.docIds[doc] === null ? 0 : groupsOf(doc); mask !== 0; mask &= mask - 1) {
        const g = 31 - Math.clz32(mask & -mask);
        const postings = out[g] as Postings;
        if (postings.docs.length >= (caps[g] as number)) continue;
        postings.docs.push(doc);
        postings.tfs.push(tfs[i] as number);
        if (postings.docs.length === caps[g]) open--;
      }
    }
    return out;
  }

  /** Drops dead documents and renumbers the live ones (order kept). */
  private compact(): void {
    const renumber = new Int32Array(this.docIds.length).fill(-1);
    const docIds: Array<string | null> = [];
    const docMetas: SlotMeta[] = [];
    const docTexts: string[] = [];
    const docContexts: MemoryContext[] = [];
    const docLengths: number[] = [];
    const live: number[] = [];
    this.docIds.forEach((id, doc) => {
      if (id === null) return;
      const meta = this.docMetas[doc] as SlotMeta;
      renumber[doc] = docIds.length;
      this.docOfPk.set(meta.pk, docIds.length);
      docIds.push(id);
      docMetas.push(meta);
      docTexts.push(this.docTexts[doc] as string);
      docContexts.push(this.docContexts[doc] as MemoryContext);
      docLengths.push(this.docLengths[doc] as number);
      live.push(doc);
    });
    this.postingCount = 0;
    for (const [key, list] of this.terms) {
      const docs: number[] = [];
      const tfs: number[] = [];
      list.docs.forEach((doc, i) => {
        const next = renumber[doc] as number;
        if (next < 0) return;
        docs.push(next);
        tfs.push(list.tfs[i] as number);
      });
      if (docs.length === 0) this.terms.delete(key);
      else this.terms.set(key, { docs, tfs });
      this.postingCount += docs.length;
    }
    this.docIds = docIds;
    this.docMetas = docMetas;
    this.docTexts = docTexts;
    this.docContexts = docContexts;
    this.docLengths = docLengths;
    this.arena = this.arena?.compacted(live) ?? null;
    this.dead = 0;
  }
}

/** Characters a context holds (for the index's byte estimate). */
function contextChars(context: MemoryContext): number {
  if (context === NO_CONTEXT) return 0;
  let n = (context.background?.length ?? 0) + (context.statedAt?.length ?? 0);
  for (const s of context.speakers) n += s.length;
  return n + 32;
}

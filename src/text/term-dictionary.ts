/**
 * Numbers the distinct terms it is given, from 0, so documents can be kept and compared as
 * integers (4 bytes a token, no string to follow). Ids are never reused: a dictionary only grows,
 * with the vocabulary of what was analysed.
 */
export class TermDictionary {
  private readonly ids = new Map<string, number>();
  private readonly terms: string[] = [];
  private chars = 0;

  /** The id of `term`, numbering it when it is new. */
  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.ids.set(term, id);
      this.terms.push(term);
      this.chars += term.length;
    }
    return id;
  }

  /** The id of `term`, or -1 when it was never numbered (it then occurs in no document of this dictionary). */
  find(term: string): number {
    return this.ids.get(term) ?? -1;
  }

  /** The term numbered `id`. */
  term(id: number): string {
    const term = this.terms[id];
    if (term === undefined) throw new RangeError(`no term numbered ${id}`);
    return term;
  }

  /** Distinct terms numbered. */
  get size(): number {
    return this.terms.length;
  }

  /** Approximate heap bytes held (a map entry and the string of each term). */
  get bytes(): number {
    return this.terms.length * 80 + this.chars;
  }
}

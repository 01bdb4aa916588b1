import type { CompiledPolicy } from './compile-policy.js';

/** What {@link CleanStrings} can vouch for: detection finds nothing (a short string met whole). */
export const DETECTION_CLEAN = 1;
/** What {@link CleanStrings} can vouch for: the poisoning guard finds nothing. */
export const GUARD_CLEAN = 2;
/** What {@link CleanStrings} can vouch for: no secret rule has a trigger (the costly part of detection). */
export const NO_SECRET_TRIGGER = 4;
/** Stored with a string's flags: the guard ran with `allowToolSyntax`. */
const TOOLS = 8;

/** Shorter strings are looked up whole; longer ones also as a part of a remembered one. */
const MIN_PART_LENGTH = 16;
/** A memory's text and its predecessor's are what pays (a chat source's content, a background). */
const SLOTS = 3;
/** Short strings remembered at once (a sample id, a speaker's name recur in every memory). */
const MAX_SHORT = 256;
/** Shorter strings cost next to nothing to scan (detection refuses them at once). */
const MIN_SHORT_LENGTH = 6;

/** `[A-Za-z0-9_]`: what `\b` counts as a word character (no pattern here has the `u` flag). */
function isWordCode(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}

/** Whether `part` occurs in `whole` with a non-word character or an end of `whole` on each side. */
function occursBounded(whole: string, part: string): boolean {
  for (let at = whole.indexOf(part); at !== -1; at = whole.indexOf(part, at + 1)) {
    const end = at + part.length;
    if (
      (at === 0 || !isWordCode(whole.charCodeAt(at - 1))) &&
      (end === whole.length || !isWordCode(whole.charCodeAt(end)))
    )
      return true;
  }
  return false;
}

/** `flags` as {@link CleanStrings.lookup} answers them for `allowToolSyntax`. */
function forTools(flags: number, allowToolSyntax: boolean): number {
  return (flags & TOOLS) !== 0 === allowToolSyntax ? flags & ~TOOLS : flags & ~(TOOLS | GUARD_CLEAN);
}

/**
 * The strings of one batch of writes in which the scans found nothing, so that a string met again
 * needs no scan: the same answers, for less. Short strings are remembered whole (a sample id or a
 * speaker's name in every memory's metadata). The last few long model-facing ones are remembered
 * with what their scans ruled out of every part of them (no secret trigger; nothing the guard
 * flags, see `ScanNote`): a string that stands inside one between non-word characters needs
 * those scans no more. A LoCoMo-style memory repeats its text in a chat source's content, the
 * previous turn's text in its `background` and an image caption in its metadata; these are read
 * once. Holds only strings in which nothing was found, under one policy, for one batch.
 */
export class CleanStrings {
  #policy: CompiledPolicy | null = null;
  readonly #texts: string[] = [];
  /** Per slot: {@link DETECTION_CLEAN} | {@link GUARD_CLEAN} | {@link TOOLS}. */
  readonly #flags: number[] = [];
  #next = 0;
  readonly #short = new Map<string, number>();

  /** Starts over unless the strings were scanned under `policy`. */
  use(policy: CompiledPolicy): void {
    if (this.#policy === policy) return;
    this.#policy = policy;
    this.#texts.length = 0;
    this.#flags.length = 0;
    this.#next = 0;
    this.#short.clear();
  }

  /**
   * Remembers a string read in full. `found`: {@link DETECTION_CLEAN} and {@link GUARD_CLEAN} for
   * the scans that found nothing in it; `within`: {@link NO_SECRET_TRIGGER} and
   * {@link GUARD_CLEAN} for what is ruled out of every part of it; `allowToolSyntax`: the
   * guard's option.
   */
  remember(text: string, found: number, within: number, allowToolSyntax: boolean): void {
    const tools = allowToolSyntax ? TOOLS : 0;
    if (text.length < MIN_PART_LENGTH) {
      if (found === 0 || text.length < MIN_SHORT_LENGTH) return;
      if (this.#short.size >= MAX_SHORT) this.#short.clear();
      this.#short.set(text, found | tools);
      return;
    }
    if (within === 0) return;
    const slot = this.#next;
    this.#texts[slot] = text;
    this.#flags[slot] = within | tools;
    this.#next = (slot + 1) % SLOTS;
  }

  /**
   * What `text` can skip: for a short string, the `found` flags it was remembered with; for a
   * long one, the `within` flags of the most recent remembered string it stands inside. 0 when
   * nothing is known. The guard's flag holds for the same `allowToolSyntax` only.
   */
  lookup(text: string, allowToolSyntax: boolean): number {
    if (text.length < MIN_PART_LENGTH) {
      if (text.length < MIN_SHORT_LENGTH) return 0;
      const flags = this.#short.get(text);
      return flags === undefined ? 0 : forTools(flags, allowToolSyntax);
    }
    const texts = this.#texts;
    for (let n = 0, slot = this.#next; n < texts.length; n++) {
      slot = (slot + SLOTS - 1) % SLOTS;
      const whole = texts[slot] as string;
      if (whole.length < text.length) continue;
      const flags = forTools(this.#flags[slot] as number, allowToolSyntax);
      if (flags !== 0 && occursBounded(whole, text)) return flags;
    }
    return 0;
  }
}

/**
 * Where a command-like phrase stands decides whether it is a command. "Ignore previous
 * instructions" at the start of a clause is said to the reader; "she told me to ignore the
 * previous rules", "I'll ignore the previous instructions" or "…, she said" reports what someone
 * said or did.
 */
export type ClausePosition = 'imperative' | 'narrated' | 'plain';

/** Softeners that may precede an imperative without making it less of one. */
const SOFTENERS =
  /(?:\b(?:please|kindly|now|and|then|also|just|so|simply|hey|ok|okay|first|next|finally|important|note|p\.?s\.?)\b[\s,!:]*)+$/i;
/** Characters after which a new clause (and so a possible command) starts. */
const CLAUSE_START = /(?:^|[.!?:;\n"'“”‘’(*[\->|»«,])\s*$/;
/** A subject, modal or "to" right before the verb: someone does it, or is told to. */
const NARRATED_BEFORE =
  /\b(?:to|'ll|will|would|should|could|can|might|may|did|didn'?t|don'?t|doesn'?t|not|never|i|we|he|she|they|it|who|that)\s+$/i;
/** A reporting tag after the phrase: "…, she said." */
const REPORTING_TAG_AFTER =
  /^[^.!?\n]{0,80}?,\s*(?:he|she|they|i|we|my\s+\w+|the\s+\w+|[A-Z][a-z]+)\s+(?:said|says|told|asked|insisted|added|replied|wrote|laughed|joked)\b/;

/** Classifies the phrase at `start..end` of `text`. */
export function clausePosition(text: string, start: number, end: number): ClausePosition {
  const before = text.slice(Math.max(0, start - 80), start);
  const sentenceStart = Math.max(
    before.lastIndexOf('.'),
    before.lastIndexOf('!'),
    before.lastIndexOf('?'),
    before.lastIndexOf('\n'),
  );
  const sentence = before.slice(sentenceStart + 1);
  const afterColonOrQuote = /[:"“']\s*(?:\b(?:please|kindly|now|and|then|just)\b[\s,]*)*$/i.test(sentence);
  if (!afterColonOrQuote) {
    if (NARRATED_BEFORE.test(sentence)) return 'narrated';
  }
  if (REPORTING_TAG_AFTER.test(text.slice(end, end + 100))) return 'narrated';
  const trimmed = sentence.replace(SOFTENERS, '');
  return CLAUSE_START.test(sentenceStart >= 0 && trimmed.trim() === '' ? '' : trimmed) ? 'imperative' : 'plain';
}

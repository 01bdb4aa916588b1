import { stemmedTokenize } from '../text/tokenizer.js';

/**
 * Jaccard similarity of the content words (stopwords removed, English stemmed) of two texts, in
 * [0, 1]. "Ana lives in Berlin" / "Ana lives in Lisbon" give 0.5: the differing value counts.
 */
export function contentOverlap(a: string, b: string): number {
  const left = new Set(stemmedTokenize(a));
  const right = new Set(stemmedTokenize(b));
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const token of left) if (right.has(token)) shared += 1;
  return shared / (left.size + right.size - shared);
}

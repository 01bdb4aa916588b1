/** The 41 English stopwords of the reference recall, sorted. */
export const REFERENCE_STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'by', 'did', 'do', 'does', 'for', 'from', 'had', 'has', 'have', 'how',
  'i', 'in', 'is', 'it', 'of', 'on', 'or', 'that', 'the', 'their', 'then', 'there', 'to', 'was', 'were', 'what',
  'when', 'where', 'which', 'who', 'why', 'with', 'you', 'your',
]);

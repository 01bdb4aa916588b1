/** Names of the multi-path searcher's paths, one per family of memory types (plus the web). */
export const PATH_NAMES = [
  'working',
  'long-term',
  'user',
  'tool',
  'skill',
  'preference',
  'keyword',
  'internet',
] as const;
export type PathName = (typeof PATH_NAMES)[number];

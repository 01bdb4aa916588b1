export * from './dedupe-by-text.js';
export * from './mmr.js';
export * from './near-duplicates.js';
export * from './scored-hit.js';
export * from './type-buckets.js';

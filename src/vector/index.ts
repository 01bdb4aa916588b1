export * from './cosine.js';
export * from './top-k.js';
export * from './top-scored.js';
export * from './unit-cosine.js';
export * from './max-cosine.js';

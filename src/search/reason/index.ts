export * from './deep-search.js';
export * from './memory-reasoner.js';
export * from './memory-rewrite.js';
export * from './reasoner-lines.js';
export * from './stage-judge.js';

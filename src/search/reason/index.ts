export * from './deep-search.js';
export * from './memory-reasoner.js';

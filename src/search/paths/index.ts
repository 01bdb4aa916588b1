export * from './path-inputs.js';
export * from './rank-candidates.js';
export * from './run-path.js';
export * from './search-candidate.js';
export * from './merge-candidates.js';
export * from './search-paths.js';

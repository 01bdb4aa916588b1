export * from './candidate-pool.js';
export * from './lexical-weights.js';
export * from './recall-pipeline.js';
export * from './recall-profile.js';
export * from './linear-fusion.js';
export * from './token-cache.js';

export * from './decompose-query.js';
export * from './fast-plan.js';
export * from './fine-plan.js';
export * from './query-vectors.js';

export * from './decompose-query.js';
export * from './fast-plan.js';
export * from './fine-plan.js';
export * from './parsed-goal.js';
export * from './query-vectors.js';

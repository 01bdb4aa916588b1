export * from './errors.js';
export * from './hit.js';
export * from './json.js';
export * from './memory.js';
export * from './memory-type.js';
export * from './scope.js';
export * from './validate.js';

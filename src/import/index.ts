export * from './jsonl.js';
export * from './locomo.js';
export * from './memory-input.js';

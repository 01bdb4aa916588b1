export * from './recaller.js';
export * from './context-block.js';
export { sanitizeMemoryText } from './sanitize-memory-text.js';
export { approximateTokens } from './approximate-tokens.js';
export * from './inject-event.js';
export * from './injector.js';
export * from './tap-stream.js';
export * from './providers/index.js';
export * from './wrappers/index.js';

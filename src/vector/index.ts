export * from './cosine.js';
export * from './top-k.js';

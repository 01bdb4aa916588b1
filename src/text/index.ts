export * from './bm25.js';
export * from './stopwords.js';
export * from './tokenizer.js';

export * from './bm25.js';
export * from './date-words.js';
export * from './stopwords.js';
export * from './tokenizer.js';
export * from './document-analyzer.js';
export * from './pool-document.js';

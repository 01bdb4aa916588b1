export * from './boost.js';
export * from './cosine-local-reranker.js';
export * from './http-reranker.js';
export * from './noop-reranker.js';
export * from './rerank-documents.js';
export * from './reranker.js';
export * from './reranker-registry.js';

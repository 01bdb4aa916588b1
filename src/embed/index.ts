export type { EmbedOptions, EmbedRole, Embedder } from './embedder.js';
export { createLocalEmbedder, LOCAL_EMBEDDER_MODEL, type LocalEmbedderOptions } from './local/local-embedder.js';
export { createOnnxEmbedder, type OnnxEmbedderOptions } from './onnx/onnx-embedder.js';
export type { Pooling } from './onnx/onnx-model-folder.js';
export { createOpenAICompatibleEmbedder, type OpenAICompatibleEmbedderOptions } from './openai-compatible-embedder.js';
export { cacheKey, textHash, type EmbeddingCache } from './embedding-cache.js';
export {
  createLruEmbeddingCache,
  type LruEmbeddingCache,
  type LruEmbeddingCacheOptions,
} from './lru-embedding-cache.js';
export { createSqliteEmbeddingCache, type SqliteEmbeddingCacheOptions } from './sqlite-embedding-cache.js';
export { withCache } from './with-cache.js';
export { withBatching, type BatchingOptions } from './with-batching.js';
export { withTimeout, type TimeoutOptions } from './with-timeout.js';
export { withRetry } from './with-retry.js';
export { checkVectors } from './vector-checks.js';
export {
  availableEmbedders,
  registerEmbedderProvider,
  resolveEmbedder,
  type EmbedderFactory,
  type ResolveEmbedderOptions,
} from './resolve-embedder.js';

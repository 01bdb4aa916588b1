export { createApp, type AppOptions } from './create-app.js';
export { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.js';
export { errorResponse } from './error-response.js';
export type { SearchServing } from './route-types.js';
export { startServer, type RunningServer, type StartServerOptions } from './start-server.js';
export { openDefaultEngram, DATABASE_FILE, type DefaultEngramOptions } from '../open-default-engram.js';
export { ERROR_HTTP_STATUS } from '../model/errors.js';
export { createServerLogger, silentLogger, type ServerLogger, type ServerLoggerOptions } from './server-logger.js';
export { createServerMetrics, type ServerMetrics, type ServerMetricsOptions } from './server-metrics.js';
export { curlExample } from './curl-example.js';
export {
  createKey,
  listKeys,
  revokeKey,
  openKeyStore,
  openDataDirKeyStore,
  KEYS_FILE,
  type ApiKeyInfo,
  type CreateKeyInput,
  type CreatedKey,
  type KeyAccess,
  type KeyStore,
  type KeyVerifier,
  type Principal,
} from '../auth/index.js';

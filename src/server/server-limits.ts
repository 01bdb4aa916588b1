/** Size limits of the HTTP layer (the facade's own text and result limits apply as well). */
export interface ServerLimits {
  /** Largest request body, in bytes. @default 4194304 (4 MiB) */
  maxBodyBytes: number;
  /** Most memories in one batch import. @default 1000 */
  maxBatch: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = { maxBodyBytes: 4 * 1024 * 1024, maxBatch: 1_000 };

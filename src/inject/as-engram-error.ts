import { EngramError, isEngramError, type EngramErrorCode } from '../model/errors.js';

/** `error` itself when it is an EngramError, else a new one with `code` and `message` caused by it. */
export function asEngramError(error: unknown, code: EngramErrorCode, message: string): EngramError {
  return isEngramError(error) ? error : new EngramError(code, message, { cause: error });
}

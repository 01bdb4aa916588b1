import { expect } from 'vitest';
import { EngramError } from '../../src/model/errors.js';

/** Awaits `promise`, expects it to reject with an EngramError of this `code`, and returns the error. */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<EngramError> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught, `expected EngramError(${code})`).toBeInstanceOf(EngramError);
  expect((caught as EngramError).code, (caught as Error).message).toBe(code);
  return caught as EngramError;
}

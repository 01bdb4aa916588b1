import { expect, it } from 'vitest';
import { ERROR_HTTP_STATUS } from '../../src/model/errors.js';
import { codeForHttpStatus } from '../../src/model/status-code.js';

it('an error status without an Engram body maps to a code the server answers with that same status', () => {
  for (const status of new Set(Object.values(ERROR_HTTP_STATUS))) {
    expect(ERROR_HTTP_STATUS[codeForHttpStatus(status)], String(status)).toBe(status);
  }
  expect(codeForHttpStatus(408)).toBe('TIMEOUT');
  expect(codeForHttpStatus(418)).toBe('INVALID_INPUT');
  expect(codeForHttpStatus(599)).toBe('INTERNAL');
});

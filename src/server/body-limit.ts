import type { OpenAPIHono } from '@hono/zod-openapi';
import { bodyLimit } from 'hono/body-limit';
import { EngramError } from '../model/errors.js';
import type { AppEnv } from './route-types.js';

/** Cuts request bodies larger than `maxBytes` with PAYLOAD_TOO_LARGE before anything reads them. */
export function useBodyLimit(app: OpenAPIHono<AppEnv>, maxBytes: number): void {
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw new EngramError('PAYLOAD_TOO_LARGE', `the request body is larger than ${maxBytes} bytes`, {
          details: { limit: maxBytes },
        });
      },
    }),
  );
}

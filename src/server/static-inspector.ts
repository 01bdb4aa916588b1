import { readFile, stat } from 'node:fs/promises';
import { extname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import type { AppEnv } from './route-types.js';

/** Where the memory inspector is served. */
export const INSPECTOR_PATH = '/inspector';

/** The built inspector (`npm run build:web`), relative to this file in `src/server` or `dist/server`. */
export const DEFAULT_INSPECTOR_ROOT = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/** Options of {@link registerStaticInspector}. */
export interface StaticInspectorOptions {
  /** Directory of the built page. @default {@link DEFAULT_INSPECTOR_ROOT} */
  root?: string | undefined;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Everything the page needs comes from this origin; no inline script, no framing, no plugins.
 * Styles may be set through the CSSOM (score bar widths), never through inline `<style>` or
 * `style=` markup.
 */
export const INSPECTOR_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': INSPECTOR_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const NOT_BUILT = `The memory inspector has not been built. Run \`npm run build:web\` (writes web/dist), then reload.\n`;

/** The file under `root` for a request path, or null when the path leaves `root`. */
function fileFor(root: string, requestPath: string): string | null {
  let relative: string;
  try {
    relative = decodeURIComponent(requestPath.slice(INSPECTOR_PATH.length));
  } catch {
    return null;
  }
  if (relative.includes('\0')) return null;
  if (relative === '' || relative.endsWith('/')) relative += 'index.html';
  const file = resolve(root, `.${relative.startsWith('/') ? relative : `/${relative}`}`);
  return file.startsWith(root.endsWith(sep) ? root : root + sep) ? file : null;
}

async function readRegularFile(file: string): Promise<Buffer | null> {
  try {
    const info = await stat(file);
    return info.isFile() ? await readFile(file) : null;
  } catch {
    return null;
  }
}

/**
 * Serves the built memory inspector (a static single page) at `/inspector/`. The page holds no
 * secret and no data: it asks for an API key and calls the same `/v1` API, so the key's tenant
 * and collection rules apply to everything it shows. Hashed assets are cached for a year, the
 * HTML never; every response carries a strict Content-Security-Policy. Without a build, the page
 * answers 503 with the command that builds it.
 */
export function registerStaticInspector(app: Hono<AppEnv>, options: StaticInspectorOptions = {}): void {
  const root = resolve(options.root ?? DEFAULT_INSPECTOR_ROOT);
  app.get(INSPECTOR_PATH, (c) => {
    c.set('route', INSPECTOR_PATH);
    return c.redirect(`${INSPECTOR_PATH}/`, 301);
  });
  app.get(`${INSPECTOR_PATH}/*`, async (c) => {
    c.set('route', `${INSPECTOR_PATH}/*`);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.header(name, value);
    const file = fileFor(root, c.req.path);
    if (file === null) return c.text('not found\n', 404);
    const body = await readRegularFile(file);
    if (body === null) {
      const index = await readRegularFile(resolve(root, 'index.html'));
      if (index === null) return c.text(NOT_BUILT, 503, { 'cache-control': 'no-store' });
      return c.text('not found\n', 404);
    }
    const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    const immutable = file.startsWith(resolve(root, 'assets') + sep);
    c.header('content-type', type);
    c.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    return c.body(new Uint8Array(body));
  });
}

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The memory inspector: a static page served by `engram serve` at /inspector/.
 * `npm run build:web` writes web/dist (never committed). No CDN, no web fonts, no inline script.
 */
export default defineConfig({
  root,
  base: '/inspector/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});

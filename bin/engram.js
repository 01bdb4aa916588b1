#!/usr/bin/env node
// Runs the compiled CLI when built (always, in the npm package), else — in the repository before
// `npm run build` — the TypeScript sources through tsx.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../dist/cli/bin.js', import.meta.url))) {
  await import('../dist/cli/bin.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/bin.ts');
}

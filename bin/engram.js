#!/usr/bin/env node
// Runs the compiled CLI when built (npm run build), else the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/cli/bin.js', import.meta.url));
if (existsSync(compiled)) {
  await import(compiled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/bin.ts');
}

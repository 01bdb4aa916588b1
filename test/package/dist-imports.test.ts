import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkDistImports } from './dist-imports.js';

// The check on a small made-up package: each rule must fire on its case and stay quiet on the rest.
const root = mkdtempSync(join(tmpdir(), 'engram-dist-imports-'));
const write = (path: string, text: string): void => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};

write(
  'package.json',
  JSON.stringify({
    name: 'made-up',
    dependencies: { dep: '1', 'untyped-dep': '1', 'typed-by-at-types': '1', '@types/typed-by-at-types': '1' },
    peerDependencies: { peer: '1' },
    peerDependenciesMeta: { peer: { optional: true } },
  }),
);
for (const [name, manifest] of [
  ['dep', { name: 'dep', types: 'index.d.ts' }],
  ['untyped-dep', { name: 'untyped-dep' }],
  ['typed-by-at-types', { name: 'typed-by-at-types' }],
  ['peer', { name: 'peer', exports: { '.': { types: './i.d.ts', default: './i.js' } } }],
] as const) {
  write(`node_modules/${name}/package.json`, JSON.stringify(manifest));
}
write('dist/here.js', 'export const here = 1;\n');
write(
  'dist/index.js',
  [
    "import { readFileSync } from 'node:fs';",
    "import path from 'path';",
    "import dep from 'dep/sub/path.js';",
    "import undeclared from 'undeclared';",
    "export { here } from './here.js';",
    "export * from './gone.js';",
    "import peerStatic from 'peer';",
    "const NAME = 'peer';",
    'const lazy = () => import(`${NAME}/x.js`);',
    "const OTHER = 'also-undeclared';",
    'const byName = () => import(OTHER);',
    'const computed = (m) => import(m);',
    "const req = require.resolve('@scope/thing/package.json');",
  ].join('\n'),
);
write(
  'dist/index.d.ts',
  [
    "import type { A } from 'dep';",
    "import type { B } from 'untyped-dep';",
    "import type { C } from 'typed-by-at-types';",
    "export type D = import('peer').D;",
    "import type { Readable } from 'node:stream';",
  ].join('\n'),
);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('checkDistImports', () => {
  it('reports every reference the manifest does not back, and only those', () => {
    const problems = checkDistImports(root).map(({ file, specifier, kind, reason }) => ({
      file,
      specifier,
      kind,
      reason,
    }));
    expect(problems).toEqual([
      {
        file: 'dist/index.d.ts',
        specifier: 'untyped-dep',
        kind: 'type',
        reason: 'untyped-dep ships no types and @types/untyped-dep is not a dependency',
      },
      {
        file: 'dist/index.d.ts',
        specifier: 'peer',
        kind: 'type',
        reason:
          'peer is used by a public type but is not a dependency (an optional peer is missing for some consumers)',
      },
      {
        file: 'dist/index.js',
        specifier: 'undeclared',
        kind: 'static',
        reason: 'undeclared is not in dependencies or peerDependencies',
      },
      { file: 'dist/index.js', specifier: './gone.js', kind: 'static', reason: './gone.js is not in the package' },
      {
        file: 'dist/index.js',
        specifier: 'peer',
        kind: 'static',
        reason: 'a static import of the peer peer: the entry point fails without it',
      },
      {
        file: 'dist/index.js',
        specifier: 'also-undeclared',
        kind: 'dynamic',
        reason: 'also-undeclared is not in dependencies or peerDependencies',
      },
      {
        file: 'dist/index.js',
        specifier: '<dynamic>',
        kind: 'dynamic',
        reason: 'a computed module specifier: it cannot be checked',
      },
      {
        file: 'dist/index.js',
        specifier: '@scope/thing/package.json',
        kind: 'require',
        reason: '@scope/thing is not in dependencies or peerDependencies',
      },
    ]);
  });

  it('leaves out the references a caller allows', () => {
    const problems = checkDistImports(root, [
      { file: 'dist/index.js', specifier: 'undeclared', reason: 'test' },
      { file: 'dist/index.js', specifier: '<dynamic>', reason: 'test' },
    ]);
    expect(problems.map((p) => p.specifier)).toEqual([
      'untyped-dep',
      'peer',
      './gone.js',
      'peer',
      'also-undeclared',
      '@scope/thing/package.json',
    ]);
  });
});

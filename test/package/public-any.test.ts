import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPublicAny } from './public-any.js';

// A made-up installed package whose declarations leak `any` in the two ways that matter.
const root = mkdtempSync(join(tmpdir(), 'engram-public-any-'));
const write = (path: string, text: string): void => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
};
write('package.json', JSON.stringify({ name: 'consumer', type: 'module' }));
write(
  'tsconfig.json',
  JSON.stringify({
    compilerOptions: { strict: true, module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', noEmit: true },
  }),
);
write(
  'node_modules/made-up/package.json',
  JSON.stringify({
    name: 'made-up',
    type: 'module',
    exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
  }),
);
write(
  'node_modules/made-up/dist/index.d.ts',
  [
    "import type { Thing } from 'not-installed';",
    'export interface Row { id: string; tags: readonly string[] }',
    'export interface Store {',
    '  readonly database: Thing;',
    '  name: string;',
    '  get(id: string): Promise<Row | null>;',
    '  extra(options: { hook: (value: any) => void }): void;',
    '  private secret;',
    '}',
    '/** A library default is not ours: AsyncIterable<Row> is AsyncIterable<Row, any, any>. */',
    'export declare function rows(): AsyncIterable<Row>;',
    'export declare const clean: { make(): Store["name"] };',
  ].join('\n'),
);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('findPublicAny', () => {
  it('finds an unresolved import and a written any through members, signatures and parameters, and nothing else', () => {
    const leaks = findPublicAny({
      tsconfig: join(root, 'tsconfig.json'),
      entries: ['made-up'],
      ownDir: join(root, 'node_modules/made-up/dist'),
    });
    expect(leaks).toEqual([
      'index.d.ts:7: any',
      'made-up:Store.database (unresolved)',
      'made-up:Store.extra(options).hook(value)',
    ]);
  });

  it('says when an entry point does not resolve', () => {
    expect(() =>
      findPublicAny({ tsconfig: join(root, 'tsconfig.json'), entries: ['made-up/nope'], ownDir: root }),
    ).toThrow(/made-up\/nope does not resolve/);
  });
});

import { afterEach, describe, expect, it } from 'vitest';

import { rowFactory } from '../../src/util/row-factory.js';
import { seededRandom } from '../store/fixtures/records.js';

/** The rows a statement gave before: the names assigned one after another. */
function assigned(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  names.forEach((name, i) => (row[name] = values[i]));
  return row;
}

const ODD_NAMES = [
  'id',
  'a b',
  '"quoted"',
  "it's",
  'back\\slash',
  'new\nline',
  '',
  '0',
  '10',
  'constructor',
  'toString',
  'hasOwnProperty',
  '名前',
  '😀',
  '${x}',
  '`tick`',
  '}; throw new Error("injected"); ({',
];

describe('rowFactory', () => {
  const realFunction = globalThis.Function;
  afterEach(() => {
    globalThis.Function = realFunction;
  });

  it('builds the rows assigning the names in order builds, keys in the same order', () => {
    const random = seededRandom(3);
    const values = [1, 'two', null, 3.5, Buffer.from('b'), 2n ** 60n, { nested: true }, ['x'], undefined];
    for (let round = 0; round < 200; round++) {
      const names = ODD_NAMES.filter(() => random() < 0.6).sort(() => random() - 0.5);
      const row = names.map((_, i) => values[i % values.length]);
      const made = rowFactory(names)(row);
      expect(made).toStrictEqual(assigned(names, row));
      expect(Object.keys(made)).toEqual(Object.keys(assigned(names, row)));
      expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    }
  });

  it('keeps the last value of a repeated name, and treats __proto__ as assignment does', () => {
    expect(rowFactory(['a', 'b', 'a'])([1, 2, 3])).toStrictEqual({ a: 3, b: 2 });
    const proto = { inherited: true };
    const made = rowFactory(['x', '__proto__'])([1, proto]);
    const before = assigned(['x', '__proto__'], [1, proto]);
    expect(Object.getPrototypeOf(made)).toBe(Object.getPrototypeOf(before));
    expect(Object.keys(made)).toEqual(Object.keys(before));
  });

  it('builds rows key by key where compiling code from strings is refused', () => {
    globalThis.Function = function refuse() {
      throw new EvalError('Code generation from strings disallowed for this context');
    } as unknown as FunctionConstructor;
    const names = ['id', 'text', 'a b'];
    expect(rowFactory(names)(['m1', 'hello', 3])).toStrictEqual({ id: 'm1', text: 'hello', 'a b': 3 });
  });
});

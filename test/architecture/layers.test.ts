import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  fileCycles,
  layerCycles,
  layerViolations,
  readImportGraph,
  type ImportGraph,
  type LayerRules,
} from './import-graph.js';

/**
 * The layers of src/, lowest first, and what each may import ([docs/architecture.md](../../docs/architecture.md) explains why).
 * A layer not listed here fails the test: a new folder has to say where it sits.
 */
export const LAYER_RULES: LayerRules = {
  model: [],
  util: ['model'],
  text: ['model', 'util'],
  vector: ['model', 'util'],
  safety: ['model', 'util', 'text'],
  llm: ['model', 'util'],
  embed: ['model', 'util', 'text', 'vector'],
  store: ['model', 'util', 'text', 'vector'],
  auth: ['model', 'util'],
  tenant: ['model', 'util', 'safety'],
  client: ['model', 'util'],
  wire: ['model', 'util'],
  import: ['model', 'util', 'store'],
  recall: ['model', 'util', 'text', 'vector', 'embed', 'store'],
  search: ['model', 'util', 'text', 'vector', 'embed', 'llm', 'recall', 'store'],
  inject: ['model', 'util', 'text'],
  formation: ['model', 'util', 'text', 'vector', 'embed', 'llm', 'recall', 'safety', 'store'],
  eval: ['model', 'util', 'text'],
  facade: ['model', 'util', 'text', 'vector', 'embed', 'llm', 'store', 'recall', 'search', 'safety', 'formation'],
  // prettier-ignore
  engram: [
    'model', 'util', 'text', 'vector', 'embed', 'llm', 'store', 'recall', 'search', 'safety', 'formation', 'facade',
  ],
  'open-default-engram': ['model', 'util', 'embed', 'store', 'engram', 'tenant'],
  mcp: ['model', 'util', 'auth', 'wire', 'open-default-engram'],
  // prettier-ignore
  server: [
    'model', 'util', 'auth', 'text', 'embed', 'llm', 'store', 'search', 'inject', 'wire', 'mcp', 'engram',
    'open-default-engram', 'safety', 'formation',
  ],
  // prettier-ignore
  cli: [
    'model', 'util', 'text', 'vector', 'safety', 'llm', 'embed', 'store', 'auth', 'client', 'import', 'recall',
    'search', 'inject', 'formation', 'eval', 'wire', 'engram', 'open-default-engram', 'mcp', 'server', 'tenant',
  ],
  index: ['model', 'util', 'engram', 'recall', 'store', 'embed'],
};

/**
 * Layers that may use the store only through its contract, never a backend or engine internals. The
 * contract is `memory-store.ts` and the pure helpers over its usage entries, which import nothing else.
 */
const STORE_CONTRACT = ['store/memory-store.ts', 'store/merge-usage.ts', 'store/replay-usage.ts'];
const CONTRACT_ONLY = {
  recall: { store: STORE_CONTRACT },
  search: { store: STORE_CONTRACT },
  formation: { store: STORE_CONTRACT },
  engram: { store: [...STORE_CONTRACT, 'store/transient-error.ts'] },
  facade: { store: STORE_CONTRACT },
};

const SRC = path.resolve(import.meta.dirname, '../../src');

describe('the layers of src/', () => {
  const graph = readImportGraph(SRC);

  it('reads the real graph (the facade imports its recall, which imports the recall pipeline)', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('engram.ts')).toContain(path.join('facade', 'recall-in-scope.ts'));
    expect(graph.get(path.join('facade', 'recall-in-scope.ts'))).toContain(path.join('recall', 'recall-pipeline.ts'));
  });

  it('has no import cycle among files', () => {
    expect(fileCycles(graph)).toEqual([]);
  });

  it('has no import cycle among folders', () => {
    expect(layerCycles(graph)).toEqual([]);
  });

  it('never imports a higher layer from a lower one, and uses the store only through its contract above it', () => {
    expect(layerViolations(graph, LAYER_RULES, CONTRACT_ONLY)).toEqual([]);
  });

  it('keeps src/model at the bottom: it imports nothing else from src/', () => {
    const out = [...graph].flatMap(([from, to]) =>
      from.startsWith('model') ? to.filter((t) => !t.startsWith('model')) : [],
    );
    expect(out).toEqual([]);
  });

  it("keeps the store contract's helpers over the contract alone (they import only it and src/model)", () => {
    const helpers = STORE_CONTRACT.filter((file) => file !== 'store/memory-store.ts');
    const out = helpers.flatMap((file) =>
      (graph.get(file) ?? []).filter((t) => t !== 'store/memory-store.ts' && !t.startsWith('model')),
    );
    expect(helpers.every((file) => graph.has(file))).toBe(true);
    expect(out).toEqual([]);
  });
});

describe('the checker itself fails on a broken graph', () => {
  const g = (edges: Record<string, string[]>): ImportGraph => new Map(Object.entries(edges));

  it('finds a file cycle and a folder cycle', () => {
    const graph = g({ 'a/x.ts': ['b/y.ts'], 'b/y.ts': ['a/z.ts'], 'a/z.ts': [] });
    expect(fileCycles(graph)).toEqual([]);
    expect(layerCycles(graph)).toEqual([['a', 'b']]);
    const cyclic = g({ 'a/x.ts': ['a/y.ts'], 'a/y.ts': ['a/x.ts'] });
    expect(fileCycles(cyclic)).toEqual([['a/x.ts', 'a/y.ts']]);
  });

  it('reports a lower layer importing a higher one, an unknown layer and a store backend used past its contract', () => {
    const graph = g({
      'model/m.ts': ['store/memory-store.ts'],
      'recall/r.ts': ['store/memory-store.ts', 'store/sqlite/sqlite-store.ts'],
      'stray/s.ts': ['model/m.ts'],
    });
    expect(layerViolations(graph, LAYER_RULES, CONTRACT_ONLY)).toEqual([
      { from: 'model/m.ts', to: 'store/memory-store.ts', reason: 'model may not import store' },
      {
        from: 'recall/r.ts',
        to: 'store/sqlite/sqlite-store.ts',
        reason: 'recall may use store only through store/memory-store.ts, store/merge-usage.ts, store/replay-usage.ts',
      },
      { from: 'stray/s.ts', to: 'model/m.ts', reason: 'layer stray has no rule' },
    ]);
  });
});

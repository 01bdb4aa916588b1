import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Files of src/ and the src/ files each one imports (relative imports only, resolved to .ts). */
export type ImportGraph = Map<string, string[]>;

/** Reads every `.ts` file under `root` and resolves its relative imports, re-exports and dynamic imports. */
export function readImportGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  const files: string[] = [];
  (function walk(dir: string): void {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) files.push(full);
    }
  })(root);
  for (const file of files) {
    // The compiler's own pre-processor: every import, export-from and import() a file makes.
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = info.importedFiles
      .map((f) => f.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => path.relative(root, path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'))));
    graph.set(path.relative(root, file), [...new Set(targets)]);
  }
  return graph;
}

/** The layer of a file: its top folder under src/, or the file's name for top-level files. */
export function layerOf(file: string): string {
  const parts = file.split(path.sep);
  return parts.length === 1 ? (parts[0] as string).replace(/\.ts$/, '') : (parts[0] as string);
}

/** Cycles among files (strongly connected components of more than one file, or a self-import). */
export function fileCycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) as number, indices.get(w) as number));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indices.has(v)) visit(v);
  return cycles;
}

/** Which layers each layer may import. A layer always may import itself. */
export type LayerRules = Record<string, readonly string[]>;

/** One import that breaks the rules. */
export interface LayerViolation {
  from: string;
  to: string;
  reason: string;
}

/**
 * Imports that cross layers against `rules`, and imports of `store` internals from layers that
 * may only use the store contract (`contractOnly`: layer → the files of another layer it may use).
 */
export function layerViolations(
  graph: ImportGraph,
  rules: LayerRules,
  contractOnly: Record<string, Record<string, readonly string[]>> = {},
): LayerViolation[] {
  const out: LayerViolation[] = [];
  for (const [from, targets] of graph) {
    const a = layerOf(from);
    const allowed = rules[a];
    for (const to of targets) {
      const b = layerOf(to);
      if (a === b) continue;
      if (!allowed) {
        out.push({ from, to, reason: `layer ${a} has no rule` });
      } else if (!allowed.includes(b)) {
        out.push({ from, to, reason: `${a} may not import ${b}` });
      } else {
        const only = contractOnly[a]?.[b];
        if (only && !only.includes(to))
          out.push({ from, to, reason: `${a} may use ${b} only through ${only.join(', ')}` });
      }
    }
  }
  return out;
}

/** Cycles among layers (folders): pairs of layers that import each other, directly or not. */
export function layerCycles(graph: ImportGraph): string[][] {
  const folders: ImportGraph = new Map();
  for (const [from, targets] of graph) {
    const a = layerOf(from);
    const set = new Set(folders.get(a) ?? []);
    for (const to of targets) if (layerOf(to) !== a) set.add(layerOf(to));
    folders.set(a, [...set]);
  }
  for (const targets of folders.values()) for (const t of targets) if (!folders.has(t)) folders.set(t, []);
  return fileCycles(folders);
}

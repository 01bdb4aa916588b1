import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/** One module reference found in a shipped file. */
export interface ModuleReference {
  /** Path relative to the package root, with `/`. */
  file: string;
  specifier: string;
  /** `static`: import/export from, `dynamic`: import(), `require`: require() / require.resolve(), `type`: a .d.ts reference. */
  kind: 'static' | 'dynamic' | 'require' | 'type';
}

/** A reference the package's manifest does not back. */
export interface ImportProblem extends ModuleReference {
  reason: string;
}

/** A reference allowed although the rules would reject it, with why. */
export interface AllowedReference {
  file: string;
  specifier: string;
  reason: string;
}

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

const BUILTINS = new Set(builtinModules);

function filesUnder(root: string, dir: string): string[] {
  const base = join(root, dir);
  if (!existsSync(base)) return [];
  return readdirSync(base, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(c|m)?js$|\.d\.(c|m)?ts$/.test(entry.name))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

/** String constants of a file (`const NAME = '…'`), to read `import(NAME)` and `${NAME}/x` specifiers. */
function stringConstants(source: ts.SourceFile): Map<string, string> {
  const constants = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer !== undefined &&
      ts.isStringLiteralLike(node.initializer) &&
      (ts.getCombinedNodeFlags(node) & ts.NodeFlags.Const) !== 0
    ) {
      constants.set(node.name.text, node.initializer.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return constants;
}

/** The text of a specifier expression, or null when it is not a constant. */
function constantText(node: ts.Expression, constants: Map<string, string>): string | null {
  if (ts.isStringLiteralLike(node)) return node.text;
  if (ts.isIdentifier(node)) return constants.get(node.text) ?? null;
  if (ts.isTemplateExpression(node)) {
    let text = node.head.text;
    for (const span of node.templateSpans) {
      if (!ts.isIdentifier(span.expression)) return null;
      const value = constants.get(span.expression.text);
      if (value === undefined) return null;
      text += value + span.literal.text;
    }
    return text;
  }
  return null;
}

function isRequireCall(call: ts.CallExpression): boolean {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text === 'require';
  return (
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    callee.expression.text === 'require' &&
    callee.name.text === 'resolve'
  );
}

/** Every module reference of one file; a specifier that is not a constant is reported as `<dynamic>`. */
function referencesOf(root: string, file: string): ModuleReference[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const declaration = /\.d\.(c|m)?ts$/.test(file);
  const constants = stringConstants(source);
  const found: ModuleReference[] = [];
  const add = (specifier: string | null, kind: ModuleReference['kind']): void =>
    void found.push({ file, specifier: specifier ?? '<dynamic>', kind: declaration ? 'type' : kind });
  for (const directive of source.typeReferenceDirectives) add(directive.fileName, 'type');
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined) {
      add(constantText(node.moduleSpecifier, constants), 'static');
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, 'type');
    } else if (ts.isCallExpression(node) && node.arguments[0] !== undefined) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword)
        add(constantText(node.arguments[0], constants), 'dynamic');
      else if (isRequireCall(node)) add(constantText(node.arguments[0], constants), 'require');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] as string);
}

/** The folder of an installed package, looked up the way Node does from `fromDir`. */
function installedPackageDir(fromDir: string, name: string): string | null {
  for (let dir = resolve(fromDir); ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** True when an installed package carries its own type declarations. */
function shipsTypes(packageDir: string): boolean {
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as Record<string, unknown>;
  if (typeof manifest.types === 'string' || typeof manifest.typings === 'string') return true;
  if (JSON.stringify(manifest.exports ?? null).includes('"types"')) return true;
  return existsSync(join(packageDir, 'index.d.ts'));
}

function typesPackageName(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

/**
 * Where a reference's module must come from, or why the manifest does not back it:
 * - relative specifiers must name a shipped file;
 * - Node built-ins are always there;
 * - runtime references need a dependency (or optional dependency); a peer only for dynamic
 *   `import()` / `require()`, since a static import of an optional peer breaks its entry point
 *   for everyone without it;
 * - `.d.ts` references need a dependency (or non-optional peer) that ships types, or its
 *   `@types/*` package as a dependency: under `skipLibCheck: false` a missing one is an error
 *   in every consumer, and under `skipLibCheck: true` it silently becomes `any`.
 */
function problemOf(root: string, manifest: Manifest, ref: ModuleReference): string | null {
  if (ref.specifier === '<dynamic>') return 'a computed module specifier: it cannot be checked';
  if (ref.specifier.startsWith('.')) {
    const target = resolve(dirname(join(root, ref.file)), ref.specifier);
    return existsSync(target) ? null : `${ref.specifier} is not in the package`;
  }
  if (ref.specifier.startsWith('node:') || BUILTINS.has(ref.specifier)) return null;
  const name = packageNameOf(ref.specifier);
  const dependency = manifest.dependencies?.[name] ?? manifest.optionalDependencies?.[name];
  const peer = manifest.peerDependencies?.[name];
  const optionalPeer = peer !== undefined && manifest.peerDependenciesMeta?.[name]?.optional === true;
  if (ref.kind === 'type') {
    if (dependency === undefined && (peer === undefined || optionalPeer)) {
      return `${name} is used by a public type but is not a dependency${optionalPeer ? ' (an optional peer is missing for some consumers)' : ''}`;
    }
    const installed = installedPackageDir(dirname(join(root, ref.file)), name);
    if (installed === null) return `${name} is not installed next to the package`;
    const typesName = typesPackageName(name);
    if (!shipsTypes(installed) && manifest.dependencies?.[typesName] === undefined) {
      return `${name} ships no types and ${typesName} is not a dependency`;
    }
    return null;
  }
  if (dependency !== undefined) return null;
  if (peer !== undefined)
    return ref.kind === 'static' ? `a static import of the peer ${name}: the entry point fails without it` : null;
  return `${name} is not in dependencies or peerDependencies`;
}

/** Every module reference in the shipped code folders of a package. */
export function moduleReferences(
  packageRoot: string,
  folders: readonly string[] = ['dist', 'bin', 'cjs'],
): ModuleReference[] {
  return folders
    .flatMap((folder) => filesUnder(packageRoot, folder))
    .flatMap((file) => referencesOf(packageRoot, file));
}

/**
 * Walks the package's shipped code (`dist/`, `bin/`, `cjs/`) and returns every module reference
 * its `package.json` does not back (see {@link problemOf}), minus the `allowed` ones.
 */
export function checkDistImports(packageRoot: string, allowed: readonly AllowedReference[] = []): ImportProblem[] {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as Manifest;
  const problems: ImportProblem[] = [];
  for (const ref of moduleReferences(packageRoot)) {
    if (allowed.some((a) => a.file === ref.file && a.specifier === ref.specifier)) continue;
    const reason = problemOf(packageRoot, manifest, ref);
    if (reason !== null) problems.push({ ...ref, reason });
  }
  return problems;
}

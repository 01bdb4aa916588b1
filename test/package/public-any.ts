import { dirname, resolve, sep } from 'node:path';
import ts from 'typescript';

/** Where an `any` reaches a consumer: the export and the path to it, e.g. `engram-memory/store:SqliteStore.database`. */
export type AnyLeak = string;

/** Options of {@link findPublicAny}. */
export interface FindPublicAnyOptions {
  /** The consumer's tsconfig.json: module resolution and lib as the consumer has them. */
  tsconfig: string;
  /** Entry points to walk, as the consumer imports them (`engram-memory`, `engram-memory/store`, …). */
  entries: readonly string[];
  /** Folder of the package's own declarations: only types declared there are walked into. */
  ownDir: string;
  /** How deep to follow types from an export. @default 12 */
  maxDepth?: number | undefined;
}

const HIDDEN = ts.ModifierFlags.Private | ts.ModifierFlags.Protected;

class Walker {
  readonly leaks = new Set<AnyLeak>();
  private readonly seen = new Set<ts.Type>();

  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly ownDir: string,
    private readonly maxDepth: number,
  ) {}

  private isOwn(symbol: ts.Symbol | undefined): boolean {
    const declarations = symbol?.declarations ?? [];
    return declarations.some((d) => resolve(d.getSourceFile().fileName).startsWith(this.ownDir));
  }

  private isHidden(symbol: ts.Symbol): boolean {
    return (symbol.declarations ?? []).some((d) => (ts.getCombinedModifierFlags(d) & HIDDEN) !== 0);
  }

  private signatures(type: ts.Type, path: string, depth: number): void {
    const all = [
      ...type.getCallSignatures().map((s) => ['', s] as const),
      ...type.getConstructSignatures().map((s) => ['new ', s] as const),
    ];
    for (const [prefix, signature] of all) {
      for (const parameter of signature.getParameters()) {
        this.visit(this.checker.getTypeOfSymbol(parameter), `${prefix}${path}(${parameter.name})`, depth + 1);
      }
      this.visit(signature.getReturnType(), `${prefix}${path}()`, depth + 1);
    }
  }

  private members(type: ts.Type, path: string, depth: number): void {
    for (const property of this.checker.getPropertiesOfType(type)) {
      if (!this.isOwn(property) || this.isHidden(property)) continue;
      this.visit(this.checker.getTypeOfSymbol(property), `${path}.${property.name}`, depth + 1);
    }
    for (const info of this.checker.getIndexInfosOfType(type)) this.visit(info.type, `${path}[]`, depth + 1);
    this.signatures(type, path, depth);
  }

  /**
   * `fromDefault`: the type is a type argument of another package's type, where a plain `any`
   * is that package's default (`AsyncIterable<T>` is `AsyncIterable<T, any, any>`), not ours;
   * an `any` written in our declarations is found by {@link explicitAny} instead.
   */
  visit(type: ts.Type, path: string, depth = 0, fromDefault = false): void {
    if ((type.flags & ts.TypeFlags.Any) !== 0) {
      // The error type is what an import that does not resolve becomes.
      const unresolved = (type as { intrinsicName?: string }).intrinsicName === 'error';
      if (unresolved || !fromDefault) this.leaks.add(unresolved ? `${path} (unresolved)` : path);
      return;
    }
    if (depth > this.maxDepth || this.seen.has(type)) return;
    this.seen.add(type);
    for (const argument of type.aliasTypeArguments ?? []) this.visit(argument, `${path}<>`, depth + 1);
    if (type.isUnionOrIntersection()) {
      for (const part of type.types) this.visit(part, path, depth + 1);
      return;
    }
    if ((type.flags & ts.TypeFlags.Object) === 0) return;
    const object = type as ts.ObjectType;
    // Types of other packages are their contract, not ours: only their type arguments are walked.
    const own = this.isOwn(type.getSymbol() ?? type.aliasSymbol);
    if ((object.objectFlags & ts.ObjectFlags.Reference) !== 0) {
      for (const argument of this.checker.getTypeArguments(object as ts.TypeReference)) {
        this.visit(argument, `${path}<>`, depth + 1, !own);
      }
    }
    if (own) this.members(type, path, depth);
  }

  exportOf(symbol: ts.Symbol, path: string): void {
    const target = (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? this.checker.getAliasedSymbol(symbol) : symbol;
    if ((target.flags & (ts.SymbolFlags.Value | ts.SymbolFlags.Alias)) !== 0) {
      this.visit(this.checker.getTypeOfSymbol(target), path);
    }
    if ((target.flags & ts.SymbolFlags.Type) !== 0) {
      this.visit(this.checker.getDeclaredTypeOfSymbol(target), path);
    }
  }
}

/** Every `any` keyword in the package's own declaration files the program reached. */
function explicitAny(program: ts.Program, ownDir: string): AnyLeak[] {
  const found: AnyLeak[] = [];
  for (const source of program.getSourceFiles()) {
    if (!resolve(source.fileName).startsWith(ownDir)) continue;
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.AnyKeyword) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${source.fileName.slice(ownDir.length)}:${line + 1}: any`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/**
 * Every place an `any` reaches a consumer through the exports of the given entry points: the
 * types of exported values, the members of exported types, signatures' parameters and results,
 * and type arguments — walking into the package's own types (under `ownDir`) and stopping at
 * other packages' types — plus every `any` written in the package's declarations. An import
 * that does not resolve is an `any` too, so a missing types package shows up here even with
 * `skipLibCheck: true`.
 */
export function findPublicAny(options: FindPublicAnyOptions): AnyLeak[] {
  const config = ts.readConfigFile(options.tsconfig, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(options.tsconfig));
  const from = resolve(dirname(options.tsconfig), 'index.ts');
  const files = options.entries.map((entry) => {
    const resolved = ts.resolveModuleName(entry, from, parsed.options, ts.sys).resolvedModule;
    if (resolved === undefined) throw new Error(`${entry} does not resolve from ${dirname(options.tsconfig)}`);
    return [entry, resolved.resolvedFileName] as const;
  });
  const program = ts.createProgram({ rootNames: files.map(([, file]) => file), options: parsed.options });
  const checker = program.getTypeChecker();
  const ownDir = resolve(options.ownDir) + sep;
  const walker = new Walker(checker, ownDir, options.maxDepth ?? 12);
  for (const [entry, file] of files) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) throw new Error(`${entry}: no module in ${file}`);
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) walker.exportOf(symbol, `${entry}:${symbol.name}`);
  }
  return [...walker.leaks, ...explicitAny(program, ownDir)].sort();
}

/**
 * Tiny `--flag value` / `--flag` parser for the bench scripts (no dependency, no surprises).
 */
export interface ParsedArgs {
  values: Map<string, string>;
  flags: Set<string>;
}

/** Parses `argv` (without node and script). Unknown flags are an error listing the known ones. */
export function parseArgs(
  argv: readonly string[],
  withValue: readonly string[],
  booleans: readonly string[],
): ParsedArgs {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const [name, inline] = arg.startsWith('--')
      ? (arg.slice(2).split(/=(.*)/s) as [string, string | undefined])
      : [arg, undefined];
    if (withValue.includes(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new Error(`--${name} needs a value`);
      values.set(name, value);
    } else if (booleans.includes(name)) {
      flags.add(name);
    } else {
      const known = [...withValue.map((n) => `--${n} VALUE`), ...booleans.map((n) => `--${n}`)].join(', ');
      throw new Error(`unknown argument ${arg} (known: ${known})`);
    }
  }
  return { values, flags };
}

/** Parses `1000,10k,100000` into numbers (`k` = thousand). */
export function parseIntList(text: string, name: string): number[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d+(?:\.\d+)?)(k)?\s*$/i.exec(part);
    if (m === null) throw new Error(`--${name}: cannot parse ${JSON.stringify(part)} as a number`);
    const n = Math.round(Number(m[1]) * (m[2] === undefined ? 1 : 1000));
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name}: ${part} must be a positive integer`);
    return n;
  });
}

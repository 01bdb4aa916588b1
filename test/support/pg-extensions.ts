/**
 * Which PostgreSQL extensions the machine's server can load (pgvector, Citus), and a `describe`
 * that runs its tests only when they are there. Outside CI a missing extension skips the tests
 * with a message saying how to install it; under CI (`CI=true`, where scripts/ensure-pg-extensions.sh
 * has run) a missing extension is a failing test, so the tests can never be skipped silently.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { findPgBinDir } from './pg-server.js';

/** Extensions the tests know how to ask for. */
export type PgExtensionName = 'vector' | 'citus';

interface PgPaths {
  major: string;
  sharedir: string;
  pkglibdir: string;
}

function pgPaths(): PgPaths | null {
  try {
    const pgConfig = join(findPgBinDir(), 'pg_config');
    const out = (flag: string): string => execFileSync(pgConfig, [flag], { encoding: 'utf8' }).trim();
    const major = /(\d+)/.exec(out('--version'))?.[1] ?? '15';
    return { major, sharedir: out('--sharedir'), pkglibdir: out('--pkglibdir') };
  } catch {
    return null;
  }
}

/** True when the server's extension folder has the control file and library of `name`. */
export function pgExtensionInstalled(name: PgExtensionName): boolean {
  const paths = pgPaths();
  if (paths === null) return false;
  const lib = name === 'vector' ? 'vector.so' : 'citus.so';
  return existsSync(join(paths.sharedir, 'extension', `${name}.control`)) && existsSync(join(paths.pkglibdir, lib));
}

/** How to install the extensions, for the skip message. */
export function pgExtensionInstallHint(names: readonly PgExtensionName[]): string {
  const major = pgPaths()?.major ?? '15';
  const packages = names.map((n) =>
    n === 'vector' ? `postgresql-${major}-pgvector` : `postgresql-${major}-citus-13.0`,
  );
  return (
    `install ${names.map((n) => (n === 'vector' ? 'pgvector' : 'Citus')).join(' and ')} into PostgreSQL ${major}: ` +
    `the distribution / PGDG packages (apt-get install ${packages.join(' ')}), ` +
    'or from the release sources with `bash ../shared/pg-extensions/build.sh` when that folder exists ' +
    '(scripts/ensure-pg-extensions.sh does this in CI)'
  );
}

/** What {@link pgExtensionGate} found. */
export interface PgExtensionGate {
  available: boolean;
  missing: PgExtensionName[];
  /** Why the tests cannot run and how to fix it (empty when available). */
  message: string;
}

/** Whether every extension in `names` is installed. */
export function pgExtensionGate(names: readonly PgExtensionName[]): PgExtensionGate {
  const missing = names.filter((n) => !pgExtensionInstalled(n));
  const message =
    missing.length === 0
      ? ''
      : `PostgreSQL extension(s) ${missing.join(', ')} missing: ${pgExtensionInstallHint(missing)}`;
  return { available: missing.length === 0, missing, message };
}

/** True under CI, where extension-dependent tests must run. */
export function underCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false';
}

/**
 * `describe(title, body)` when the extensions are installed. Otherwise: under CI one failing test
 * saying which are missing; elsewhere a skipped suite and a warning with the install hint.
 */
export function describeWithPgExtensions(title: string, names: readonly PgExtensionName[], body: () => void): void {
  const gate = pgExtensionGate(names);
  if (gate.available) {
    describe(title, body);
  } else if (underCi()) {
    describe(title, () => {
      it('has the PostgreSQL extensions it needs (CI must not skip these tests)', () => {
        throw new Error(gate.message);
      });
    });
  } else {
    process.stderr.write(`[skip] ${title}: ${gate.message}\n`);
    describe.skip(`${title} (skipped: ${gate.message})`, body);
  }
}

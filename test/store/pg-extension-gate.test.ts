/**
 * The extension gate (test/support/pg-extensions.ts) in a child vitest on a machine whose
 * PostgreSQL lacks pgvector (a fake `pg_config` pointing at empty folders): outside CI the
 * suite is skipped with the install hint; under CI=true it fails instead of skipping.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('./fixtures/needs-pgvector.fixture.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'engram-gate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runChild(ci: string | undefined): { status: number | null; output: string } {
  const bin = join(dir, 'bin');
  mkdirSync(join(dir, 'share', 'extension'), { recursive: true });
  mkdirSync(join(dir, 'lib'), { recursive: true });
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'initdb'), '');
  writeFileSync(
    join(bin, 'pg_config'),
    `#!/bin/sh\ncase "$1" in --version) echo "PostgreSQL 15.9";; --sharedir) echo ${dir}/share;; --pkglibdir) echo ${dir}/lib;; esac\n`,
  );
  chmodSync(join(bin, 'pg_config'), 0o755);
  const config = join(dir, 'vitest.config.mjs');
  writeFileSync(
    config,
    `export default { test: { root: ${JSON.stringify(root)}, include: [${JSON.stringify(fixture)}] } };`,
  );
  const env: NodeJS.ProcessEnv = { ...process.env, ENGRAM_PG_BINDIR: bin };
  delete env.CI;
  delete env.VITEST;
  if (ci !== undefined) env.CI = ci;
  const child = spawnSync(join(root, 'node_modules', '.bin', 'vitest'), ['run', '--config', config], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: child.status, output: `${child.stdout}\n${child.stderr}` };
}

describe('tests that need a PostgreSQL extension', () => {
  it('skip outside CI, saying how to install it', () => {
    const { status, output } = runChild(undefined);
    expect(status, output).toBe(0);
    expect(output).toMatch(/\[skip\] needs pgvector: PostgreSQL extension\(s\) vector missing/);
    expect(output).toMatch(/postgresql-15-pgvector/);
    expect(output).toMatch(/pg-extensions\/build\.sh/);
    expect(output).toMatch(/1 skipped/);
  });

  it('fail under CI instead of skipping', () => {
    const { status, output } = runChild('true');
    expect(status, output).toBe(1);
    expect(output).toMatch(/CI must not skip these tests/);
    expect(output).toMatch(/1 failed/);
  });
});

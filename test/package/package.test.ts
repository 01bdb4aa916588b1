import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks } from '../docs/code-blocks.js';
import { listeningUrl, watchOutput } from '../support/child-output.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { checkDistImports, type AllowedReference } from './dist-imports.js';
import {
  describeRun,
  installedPackages,
  readNetLog,
  run,
  stageRepository,
  userEnv,
  type NetAttempt,
  type Run,
} from './packed-project.js';
import { findPublicAny } from './public-any.js';

/*
 * What a new user does with the package: pack the repository (`npm pack`, whose prepack builds
 * dist/ and the inspector), install the tarball into a fresh project from the npm registry
 * alone, type-check a strict consumer of every entry point, run the package README's snippets,
 * an OpenAI-wrapper call and `engram serve`. One pack and one install serve every case.
 */

const REPO = process.cwd();
const repoManifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  version: string;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
const RECORDER = join(REPO, 'test', 'package', 'net-recorder.cjs');
const ENTRY_POINTS = Object.keys(repoManifest.exports)
  .filter((key) => key !== './package.json')
  .map((key) => (key === '.' ? 'engram-memory' : `engram-memory/${key.slice(2)}`));

/**
 * Hosts other than the registry an install script may try, and why that is accepted. Anything
 * else fails the install (e.g. the postinstall of onnxruntime-node 1.18 and later, which asks
 * NuGet for CUDA libraries and fails the whole install on a machine that reaches only the registry).
 */
const ALLOWED_NET: ReadonlyArray<{ package: string; host: string; reason: string }> = [];

/** References the import check accepts in the shipped files, and why. */
const ALLOWED_REFERENCES: readonly AllowedReference[] = [
  {
    file: 'bin/engram.js',
    specifier: 'tsx/esm/api',
    reason: 'the repository fallback when dist/ is absent; the package always ships dist/',
  },
  { file: 'bin/engram.js', specifier: '../src/cli/bin.ts', reason: 'the same fallback' },
];

let work: string;
let consumer: string;
let tarball: string;
let packed: string[];
let registryHost: string;
let recorderCheck: NetAttempt[];
let install: Run;
let installNet: NetAttempt[];
let tscNodeNext: Run;
let tscBundler: Run;
let pg: PgCluster;

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => userEnv(extra);
const node = (args: string[], cwd = consumer, extra: Record<string, string> = {}): Promise<Run> =>
  run(process.execPath, args, { cwd, env: env(extra), timeoutMs: 180_000 });

/** The package README's ts blocks, written into the consumer as quick-start.ts, readme-2.ts, … */
function writeReadmeSnippets(): string[] {
  const blocks = codeBlocks(REPO, 'PACKAGE-README.md').filter((block) => block.lang === 'ts');
  return blocks.map((block, i) => {
    const name = i === 0 ? 'quick-start' : `readme-${i + 1}`;
    writeFileSync(join(consumer, `${name}.ts`), block.code);
    return name;
  });
}

async function installTarball(): Promise<void> {
  const log = join(work, 'net.log');
  const recorded = { NODE_OPTIONS: `--require ${RECORDER}`, ENGRAM_NET_LOG: log };
  // The recorder itself must see a lookup, or an empty log would prove nothing.
  await node(['-e', "require('node:dns').lookup('recorder-check.invalid', () => {})"], consumer, recorded);
  recorderCheck = readNetLog(log);
  rmSync(log, { force: true });
  const registry = await run('npm', ['config', 'get', 'registry'], { cwd: consumer, env: env() });
  registryHost = new URL(registry.stdout.trim()).hostname;
  const args = [
    'install',
    tarball,
    `openai@${repoManifest.devDependencies['openai']}`,
    `@types/node@${repoManifest.devDependencies['@types/node']}`,
    '--no-audit',
    '--no-fund',
  ];
  install = await run('npm', args, { cwd: consumer, env: env(recorded), timeoutMs: 900_000 });
  installNet = readNetLog(log);
}

/** Hosts other than the registry the install's processes tried, minus the allowed ones. */
function outsideRegistry(): string[] {
  const outside = installNet.filter(
    (attempt) =>
      attempt.host !== registryHost &&
      !ALLOWED_NET.some((a) => a.package === attempt.package && a.host === attempt.host),
  );
  return [...new Set(outside.map((a) => `${a.package ?? 'npm'} (${a.event ?? 'no script'}) -> ${a.host}`))];
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'engram-package-'));
  const stage = join(work, 'repo');
  stageRepository(REPO, stage);
  const pack = await run('npm', ['pack', '--pack-destination', work], { cwd: stage, env: env(), timeoutMs: 600_000 });
  if (pack.code !== 0) throw new Error(describeRun('npm pack', pack));
  tarball = join(work, `engram-memory-${repoManifest.version}.tgz`);
  packed = (await run('tar', ['tzf', tarball], { cwd: work, env: env() })).stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.replace(/^package\//, ''));

  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2),
  );
  const fixtures = join(REPO, 'test', 'package', 'consumer');
  for (const file of readdirSync(fixtures)) copyFileSync(join(fixtures, file), join(consumer, file));
  writeReadmeSnippets();
  [pg] = await Promise.all([startPgCluster({ database: 'consumer' }), installTarball()]);
  if (install.code !== 0) {
    throw new Error(
      `${describeRun('npm install', install)}\nhosts outside the registry: ${outsideRegistry().join(', ') || 'none'}`,
    );
  }
  console.info(`[package] npm pack ${(pack.ms / 1000).toFixed(0)} s; npm install ${(install.ms / 1000).toFixed(0)} s`);
  [tscNodeNext, tscBundler] = await Promise.all([
    node([TSC, '-p', 'tsconfig.json']),
    node([TSC, '-p', 'tsconfig.bundler.json']),
  ]);
}, 1_800_000);

afterAll(async () => {
  await pg?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the packed package, installed into a fresh project as a new user would', { timeout: 300_000 }, () => {
  it('packs what a user needs: the build, the built inspector, license, changelog and the package README', () => {
    for (const file of [
      'LICENSE',
      'CHANGELOG.md',
      'README.md',
      'package.json',
      'web/dist/index.html',
      'cjs/esm-only.cjs',
      'bin/engram.js',
    ]) {
      expect(packed).toContain(file);
    }
    for (const target of Object.values(repoManifest.exports).flatMap((entry) =>
      typeof entry === 'string' ? [entry] : Object.values(entry),
    )) {
      expect(packed).toContain(target.replace(/^\.\//, ''));
    }
    expect(packed.filter((file) => /^(src|test|bench)\//.test(file) || /locomo.*\.json$/i.test(file))).toEqual([]);
    const readme = readFileSync(join(consumer, 'node_modules', 'engram-memory', 'README.md'), 'utf8');
    expect(readme).toBe(readFileSync(join(REPO, 'PACKAGE-README.md'), 'utf8'));
    // The repository README stays the repository's after the pack.
    expect(readFileSync(join(REPO, 'README.md'), 'utf8')).toMatch(/^# Engram\n\n```sh\nnpm install && npm start/);
  });

  it('ships no source map that points to a file it does not ship', () => {
    const dir = join(consumer, 'node_modules', 'engram-memory');
    const broken = packed
      .filter((file) => file.endsWith('.map'))
      .filter((file) => {
        const map = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
          sources: string[];
          sourcesContent?: unknown[];
        };
        return map.sourcesContent?.length !== map.sources.length;
      });
    expect(broken).toEqual([]);
  });

  it('has the fields a registry needs, and no private flag', () => {
    const manifest = JSON.parse(
      readFileSync(join(consumer, 'node_modules', 'engram-memory', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(manifest).toMatchObject({ license: 'MIT', type: 'module', engines: { node: expect.any(String) } });
    expect(manifest).not.toHaveProperty('private');
    expect(manifest).toHaveProperty('repository.url', expect.stringMatching(/^git\+https:\/\//));
    expect((manifest.keywords as string[]).length).toBeGreaterThan(3);
  });

  it('installs from the registry alone, with no flag or variable, and no script reaches another host', () => {
    expect(recorderCheck.map((attempt) => attempt.host)).toContain('recorder-check.invalid');
    expect(installNet.map((attempt) => attempt.host)).toContain(registryHost);
    expect(outsideRegistry(), describeRun('npm install', install)).toEqual([]);
    expect(install.code).toBe(0);
  });

  it('installs one copy of each of its dependencies (one PGlite)', () => {
    const installed = installedPackages(join(consumer, 'node_modules'));
    const copies = Object.keys(repoManifest.dependencies).map(
      (name) => [name, installed.get(name)?.length ?? 0] as const,
    );
    expect(copies.filter(([, n]) => n !== 1)).toEqual([]);
  });

  it('imports nothing from dist/, bin/ or cjs/ that package.json does not declare', () => {
    expect(checkDistImports(join(consumer, 'node_modules', 'engram-memory'), ALLOWED_REFERENCES)).toEqual([]);
  });

  it('type-checks a strict consumer of every entry point (skipLibCheck off), NodeNext and bundler', () => {
    expect(tscNodeNext.stdout + tscNodeNext.stderr).toBe('');
    expect(tscNodeNext.code).toBe(0);
    expect(tscBundler.stdout + tscBundler.stderr).toBe('');
    expect(tscBundler.code).toBe(0);
  });

  it('lets no any reach the consumer through a public type', () => {
    const leaks = findPublicAny({
      tsconfig: join(consumer, 'tsconfig.json'),
      entries: ENTRY_POINTS,
      ownDir: join(consumer, 'node_modules', 'engram-memory', 'dist'),
    });
    expect(leaks).toEqual([]);
  });

  it("runs the package README's quick start in a fresh folder", async () => {
    const folder = mkdtempSync(join(work, 'quick-start-'));
    const result = await node([join(consumer, 'out', 'quick-start.js')], folder);
    expect(result.code, describeRun('quick start', result)).toBe(0);
    expect(result.stdout).toContain('Alice is allergic to peanuts');
    const wrapper = await node([join(consumer, 'out', 'readme-2.js')], folder, { OPENAI_API_KEY: 'sk-unused' });
    expect(wrapper.code, describeRun('README wrapper snippet', wrapper)).toBe(0);
  });

  it('runs every entry point: SQLite, PGlite, PostgreSQL, server and client, MCP, embed, inject, search', async () => {
    const result = await node([join(consumer, 'out', 'entry-points.js')], consumer, {
      ENGRAM_TEST_POSTGRES_URL: pg.url,
    });
    expect(result.code, describeRun('entry points', result)).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, unknown>;
    const peanuts = ['Alice is allergic to peanuts'];
    expect(report).toMatchObject({
      typed: true,
      sqlite: peanuts,
      openStore: peanuts,
      pglite: peanuts,
      postgres: peanuts,
    });
    expect(report.server).toEqual(['Alice prefers green tea', 'missing:null', 'bad key:UNAUTHORIZED']);
    expect((report.mcp as string[]).slice(0, 6)).toEqual([
      'add_memory',
      'delete_memory',
      'list_memories',
      'memory_history',
      'remember',
      'search_memories',
    ]);
    expect((report.mcp as string[])[6]).toContain('Alice plays the cello');
    expect(report).toMatchObject({
      inject: { emptyBlock: null, wrapOpenAI: 'function' },
      search: ['LongTermMemory', 'PreferenceMemory'],
    });
  });

  it('wraps the official openai client: the request carries the memory, the turn is captured', async () => {
    const result = await node([join(consumer, 'out', 'openai-wrapper.js')]);
    expect(result.code, describeRun('openai wrapper', result)).toBe(0);
    const report = JSON.parse(result.stdout) as {
      reply: string;
      streamed: string;
      systemMessages: unknown[];
      events: string[];
      captured: string[];
    };
    expect(report.reply).toBe('Try a peanut-free vegetable curry.');
    expect(report.streamed).toBe(report.reply);
    expect(report.systemMessages).toHaveLength(2);
    for (const system of report.systemMessages)
      expect(system).toMatch(/<engram_context>[\s\S]*Alice is allergic to peanuts[\s\S]*<\/engram_context>/);
    expect(report.events.filter((e) => e === 'injected')).toHaveLength(2);
    // Capture stores turns as episodes: the same question and reply twice are one row each (count 2).
    expect(report.captured).toEqual([report.reply, 'What can I cook tonight?'].sort());
  });

  it('explains ESM-only to require(), and loads through import() from CommonJS', async () => {
    const result = await node([join(consumer, 'commonjs.cjs')]);
    expect(result.code, describeRun('commonjs', result)).toBe(0);
    const report = JSON.parse(result.stdout) as {
      required: { ok: boolean; code?: string; message?: string };
      imported: string;
      store: string;
    };
    expect(report.required).toMatchObject({
      ok: false,
      code: 'ERR_REQUIRE_ESM',
      message: expect.stringContaining('await import("engram-memory")'),
    });
    expect(report).toMatchObject({ imported: 'function', store: 'function' });
  });

  it('starts `npx engram serve` with the inspector page answering 200, and stops on SIGTERM', async () => {
    // Its own process group, signalled as a whole like Ctrl-C in a terminal: npx does not pass
    // a SIGTERM sent to it alone on to the server.
    const child = spawn('npx', ['engram', 'serve', '--data-dir', join(work, 'serve-data'), '--port', '0'], {
      cwd: consumer,
      env: env(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const group = child.pid as number;
    // Its `closed` comes once every process holding the output pipes (npx and the server) is gone.
    const output = watchOutput(child, 'engram serve');
    try {
      const url = await listeningUrl(output);
      const page = await fetch(`${url}/inspector/`);
      const html = await page.text();
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
      expect(script).toMatch(/^\/inspector\/assets\/.+\.js$/);
      expect((await fetch(`${url}${script as string}`)).status).toBe(200);
      const inspectorLine = (await output.printed(/Memory inspector: .*\n/))[0];
      expect(inspectorLine).toBe(`Memory inspector: ${url}/inspector/\n`); // no "not built yet" hint
      process.kill(-group, 'SIGTERM');
      await output.closed;
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      try {
        process.kill(-group, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
});

import { spawn } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** How a command ended and what it printed. */
export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Options of {@link run}. */
export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Killed (SIGKILL) after this long. @default 600000 */
  timeoutMs?: number | undefined;
}

/** Runs a command to its end, collecting its output; never throws for a failing command. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** A run's output for an assertion message. */
export function describeRun(label: string, result: Run): string {
  const tail = (text: string): string => text.split('\n').slice(-40).join('\n');
  return `${label}: exit ${String(result.code)}${result.signal ? ` (${result.signal})` : ''}\n--- stdout ---\n${tail(result.stdout)}\n--- stderr ---\n${tail(result.stderr)}`;
}

/**
 * The environment of a new user's shell: this process's, without what npm, vitest, tsx or the
 * CI script set (npm_config_* from the repository's .npmrc, ONNXRUNTIME_NODE_INSTALL,
 * NODE_OPTIONS, …), so nothing of the repository changes what npm does in the consumer.
 */
export function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|ONNXRUNTIME_|VITEST|TSX_)/i.test(name)) continue;
    if (['INIT_CWD', 'NODE_OPTIONS', 'NODE_ENV', 'NODE_PATH'].includes(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** Repository paths a pack never needs (build output, installs, caches, version control). */
const NOT_COPIED = [
  '.git',
  'node_modules',
  'dist',
  'web/dist',
  'bench',
  'test',
  'coverage',
  '.engram',
  '.README.repo.md',
];

/**
 * A copy of the repository to pack from, so the build (`prepack`) never rewrites the dist/ and
 * web/dist/ other tests may be reading. Its node_modules is the repository's (a symlink).
 */
export function stageRepository(repo: string, stage: string): void {
  cpSync(repo, stage, {
    recursive: true,
    filter: (source) => {
      const path = relative(repo, source).split(sep).join('/');
      return !NOT_COPIED.some((skip) => path === skip || path.startsWith(`${skip}/`)) && !path.endsWith('.tgz');
    },
  });
  symlinkSync(realpathSync(join(repo, 'node_modules')), join(stage, 'node_modules'), 'dir');
}

/** Every installed copy of every package under a node_modules folder: name → folders. */
export function installedPackages(nodeModules: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const visit = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.name.startsWith('@')) {
        visit(path);
        continue;
      }
      const manifest = join(path, 'package.json');
      if (!existsSync(manifest)) continue;
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name !== undefined) found.set(name, [...(found.get(name) ?? []), path]);
      visit(join(path, 'node_modules'));
    }
  };
  visit(nodeModules);
  return found;
}

/** One host a process of the install looked up or connected to (see net-recorder.cjs). */
export interface NetAttempt {
  kind: 'lookup' | 'connect';
  host: string;
  /** The package whose lifecycle script was running, or null for npm itself. */
  package: string | null;
  event: string | null;
  script: string | null;
}

export function readNetLog(file: string): NetAttempt[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as NetAttempt);
}

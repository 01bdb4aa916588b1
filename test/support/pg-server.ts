/**
 * One throwaway PostgreSQL server process for tests and benches, started from the machine's own
 * binaries; the building block of {@link startPgCluster} and {@link startCitusCluster}.
 *
 * - binaries: `pg_config --bindir` (PATH first, then /usr/lib/postgresql/<version>/bin), or the
 *   folder in `ENGRAM_PG_BINDIR`;
 * - data: a fresh temp dir; `initdb` runs once per process into a template that every server
 *   copies (a copy takes ~50 ms, initdb ~1 s); when running as root the files belong to the
 *   `postgres` OS user and the binaries run through `runuser -u postgres --` (initdb refuses root);
 * - server: 127.0.0.1 on a free port, unix sockets in the temp dir, fsync/full_page_writes off;
 * - stop / start: the same data dir and port again (for fault tests); destroy removes the files;
 * - cleanup: every live server is killed and its files removed when the process exits (normally,
 *   on SIGINT/SIGTERM, or killed outright: a detached watchdog shell outlives a SIGKILL).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** How {@link PgServer.stop} takes the server down. */
export type PgStopMode = 'fast' | 'immediate' | 'kill';

/** A running (or stopped) PostgreSQL server on 127.0.0.1. */
export interface PgServer {
  readonly port: number;
  /** The server's temp dir (data in `data/`, sockets, log). */
  readonly dir: string;
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  readonly running: boolean;
  /** Starts the server again after {@link stop}, on the same port and data. */
  start(): Promise<void>;
  /** 'fast' = SIGINT (clean shutdown), 'immediate' = SIGQUIT, 'kill' = SIGKILL (a crash). Keeps the data. */
  stop(mode?: PgStopMode): Promise<void>;
  /**
   * Freezes the server and every backend (SIGSTOP): connections stay open but nothing answers,
   * like a hung node or one behind a network partition. {@link resume} thaws it.
   */
  pause(): void;
  /** Thaws a {@link pause}d server (SIGCONT). */
  resume(): void;
  /** Stops the server and removes its files. Safe to call twice. */
  destroy(): Promise<void>;
  /** What the server printed (startup errors). */
  log(): string;
  /** Stops the server, copies its data dir to `dest` (which must not exist), starts it again. */
  saveData(dest: string): Promise<void>;
}

/** Options of {@link startPgServer}. */
export interface PgServerOptions {
  /** Extra `-c name=value` server settings (e.g. shared_preload_libraries). */
  settings?: Record<string, string | number> | undefined;
  /** Prefix of the temp dir name. @default 'engram-pg-' */
  label?: string | undefined;
  /**
   * A stopped server's data dir to start from (copied; the original is left as it is), instead of
   * a fresh initdb: benches load once, save with {@link PgServer.saveData}, then measure later.
   */
  from?: string | undefined;
}

const BASE_SETTINGS: Record<string, string | number> = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: 200,
  shared_buffers: '128MB',
  deadlock_timeout: '100ms',
};

/** The folder holding initdb / postgres / pg_config of the machine's PostgreSQL server. */
export function findPgBinDir(): string {
  const fromEnv = process.env.ENGRAM_PG_BINDIR;
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv;
  const candidates: string[] = [];
  try {
    candidates.push(execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim());
  } catch {
    // pg_config not on PATH: look in the Debian layout below.
  }
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  }
  for (const dir of candidates) {
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'))) return dir;
  }
  throw new Error(
    'PostgreSQL server binaries not found (no initdb/postgres in `pg_config --bindir` nor /usr/lib/postgresql/*/bin). ' +
      'Install them with `bash scripts/ensure-postgres.sh` (apt-get install postgresql-15) or set ENGRAM_PG_BINDIR.',
  );
}

/** A free TCP port on 127.0.0.1 (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

interface Owner {
  asRoot: boolean;
  uid: number;
  gid: number;
}

function owner(): Owner {
  if (userInfo().uid !== 0) return { asRoot: false, uid: -1, gid: -1 };
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { asRoot: true, uid: id('-u'), gid: id('-g') };
}

/** [command, args] running `bin/file` as the postgres user when we are root. */
function asPostgres(o: Owner, bin: string, file: string, args: string[]): [string, string[]] {
  return o.asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, file), ...args]] : [join(bin, file), args];
}

function makeDir(o: Owner, label: string): string {
  const dir = mkdtempSync(join(tmpdir(), label));
  if (o.asRoot) chownSync(dir, o.uid, o.gid);
  chmodSync(dir, 0o700);
  return dir;
}

let template: string | undefined;

/** initdb once per process; servers copy the result. Removed with the process's other dirs. */
function templateDataDir(o: Owner, bin: string): string {
  if (template !== undefined && existsSync(join(template, 'data', 'PG_VERSION'))) return template;
  const dir = makeDir(o, 'engram-pg-template-');
  track(dir, null);
  const [cmd, args] = asPostgres(o, bin, 'initdb', [
    '-D',
    join(dir, 'data'),
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
  ]);
  try {
    execFileSync(cmd, args, { stdio: 'pipe', cwd: dir });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb failed: ${stderr || String(error)}`);
  }
  template = dir;
  return dir;
}

// ---- process-wide cleanup -------------------------------------------------------------------

const live = new Map<string, (() => number | null) | null>();
let reaperList: string | undefined;

function postmasterPidIn(dataDir: string): number | null {
  try {
    const pid = Number((readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killAllNow(): void {
  for (const [dir, pidOf] of live) {
    const pid = pidOf?.() ?? null;
    if (pid !== null && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
  live.clear();
}

/** Starts (once) a detached shell that kills the servers and removes their dirs if we die. */
function startReaper(): string {
  if (reaperList !== undefined) return reaperList;
  reaperList = join(tmpdir(), `engram-pg-reaper-${process.pid}.list`);
  appendFileSync(reaperList, '');
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done
while read -r d; do p=$(head -1 "$d/data/postmaster.pid" 2>/dev/null) && kill -9 "$p" 2>/dev/null; rm -rf "$d"; done < "$0"
rm -f "$0"`;
  const reaper = spawn('sh', ['-c', script, reaperList], { detached: true, stdio: 'ignore' });
  reaper.unref();
  process.once('exit', killAllNow);
  const onSignal = (signal: NodeJS.Signals): void => {
    killAllNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return reaperList;
}

function track(dir: string, pidOf: (() => number | null) | null): void {
  appendFileSync(startReaper(), `${dir}\n`);
  live.set(dir, pidOf);
}

// ---- one server -----------------------------------------------------------------------------

async function waitReady(url: string, exited: () => boolean, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited()) throw new Error(`postgres exited during startup:\n${log()}`);
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`postgres did not become ready in 30 s:\n${log()}`);
      await sleep(25);
    }
  }
}

/** Starts a fresh server (a copy of the process's initdb template). Takes about 0.3–1.5 s. */
export async function startPgServer(options: PgServerOptions = {}): Promise<PgServer> {
  const bin = findPgBinDir();
  const o = owner();
  const source = templateDataDir(o, bin);
  const dir = makeDir(o, options.label ?? 'engram-pg-');
  const dataDir = join(dir, 'data');
  track(dir, () => postmasterPidIn(dataDir));
  execFileSync('cp', ['-a', options.from ?? join(source, 'data'), dataDir]);
  if (options.from !== undefined && o.asRoot) execFileSync('chown', ['-R', `${o.uid}:${o.gid}`, dataDir]);
  const port = await freePort();
  const settings = { ...BASE_SETTINGS, ...options.settings };
  const args = ['-D', dataDir, '-p', String(port), '-h', '127.0.0.1', '-k', dir];
  for (const [name, value] of Object.entries(settings)) args.push('-c', `${name}=${value}`);

  let child: ChildProcess | undefined;
  let exited = true;
  let output = '';
  let destroyed = false;
  const log = (): string => output;

  const start = async (): Promise<void> => {
    if (!exited) return;
    const [cmd, cmdArgs] = asPostgres(o, bin, 'postgres', args);
    const proc = spawn(cmd, cmdArgs, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    exited = false;
    proc.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    proc.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    proc.on('exit', () => {
      if (child === proc) exited = true;
    });
    try {
      await waitReady(`postgres://postgres@127.0.0.1:${port}/postgres`, () => exited, log);
    } catch (error) {
      await stop('kill');
      throw error;
    }
  };

  const stop = async (mode: PgStopMode = 'fast'): Promise<void> => {
    signalAll('SIGCONT'); // a paused server cannot shut down
    // Signal the postmaster itself, not the runuser wrapper.
    const pid = postmasterPidIn(dataDir);
    if (pid !== null && alive(pid)) {
      process.kill(pid, mode === 'fast' ? 'SIGINT' : mode === 'immediate' ? 'SIGQUIT' : 'SIGKILL');
      const until = Date.now() + 5_000;
      while (alive(pid) && Date.now() < until) await sleep(10);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    const until = Date.now() + 2_000;
    while (!exited && Date.now() < until) await sleep(10);
    if (!exited) child?.kill('SIGKILL');
    exited = true;
  };

  const family = (): number[] => {
    const pid = postmasterPidIn(dataDir);
    if (pid === null) return [];
    let children: number[] = [];
    try {
      children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .map(Number);
    } catch {
      // pgrep exits 1 when there are no children.
    }
    return [pid, ...children.filter((c) => Number.isInteger(c) && c > 0)];
  };
  const signalAll = (signal: NodeJS.Signals): void => {
    for (const pid of family()) if (alive(pid)) process.kill(pid, signal);
  };

  const destroy = async (): Promise<void> => {
    if (destroyed) return;
    destroyed = true;
    signalAll('SIGCONT');
    await stop('fast');
    rmSync(dir, { recursive: true, force: true });
    live.delete(dir);
  };

  try {
    await start();
  } catch (error) {
    await destroy();
    throw error;
  }
  return {
    port,
    dir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`,
    get running() {
      return !exited;
    },
    start,
    stop,
    pause: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    destroy,
    log,
    saveData: async (dest: string) => {
      if (existsSync(dest)) throw new Error(`${dest} exists`);
      await stop('fast');
      execFileSync('cp', ['-a', dataDir, dest]);
      await start();
    },
  };
}

/** Runs one statement on a server as the postgres superuser (opens and closes a connection). */
export async function pgExec(url: string, sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

/** `CREATE DATABASE name` on the server; returns its URL. */
export async function createPgDatabase(server: PgServer, name: string): Promise<string> {
  await pgExec(server.url('postgres'), `CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  return server.url(name);
}

/**
 * A throwaway PostgreSQL server for tests, started from the machine's own binaries.
 *
 * - binaries: `pg_config --bindir` (PATH first, then /usr/lib/postgresql/<version>/bin), or
 *   the folder in `ENGRAM_PG_BINDIR`;
 * - data: a fresh temp dir; when running as root it is owned by the `postgres` OS user and
 *   `initdb` / `postgres` run through `runuser -u postgres --` (initdb refuses root);
 *   otherwise they run as the current user;
 * - server: 127.0.0.1 on a free port, unix sockets in the temp dir, fsync/full_page_writes off;
 * - teardown: SIGINT (fast shutdown), SIGKILL after 5 s, then the temp dir is removed.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:<port>/<database>` */
  url: string;
  port: number;
  database: string;
  /** Creates another empty database on the same server and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and removes its files. Safe to call twice. */
  stop(): Promise<void>;
}

function findBinDir(): string {
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

async function freePort(): Promise<number> {
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

/** Starts a fresh cluster and creates `database` in it. Takes about 1–2 s. */
export async function startPgCluster(options: { database?: string } = {}): Promise<PgCluster> {
  const database = options.database ?? 'engram_test';
  const bin = findBinDir();
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'engram-pg-'));
  const dataDir = join(dir, 'data');
  let uid = -1;
  let gid = -1;
  if (asRoot) {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const run = (file: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, file), ...args]] : [join(bin, file), args];

  const pwfile = join(dir, 'pw');
  writeFileSync(pwfile, 'postgres\n');
  if (asRoot) chownSync(pwfile, uid, gid);
  const [initCmd, initArgs] = run('initdb', [
    '-D',
    dataDir,
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C.UTF-8',
    '--no-sync',
    `--pwfile=${pwfile}`,
  ]);
  try {
    execFileSync(initCmd, initArgs, { stdio: 'pipe', cwd: dir });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`initdb failed: ${stderr || String(error)}`);
  }

  const port = await freePort();
  const [pgCmd, pgArgs] = run('postgres', [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    dir,
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
    '-c',
    'shared_buffers=128MB',
    '-c',
    'deadlock_timeout=100ms',
  ]);
  let log = '';
  const child: ChildProcess = spawn(pgCmd, pgArgs, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: false });
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  let exited = false;
  child.on('exit', () => (exited = true));

  let stopped = false;
  const postmasterPid = (): number | null => {
    try {
      const first = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0] ?? '';
      const pid = Number(first.trim());
      return Number.isInteger(pid) && pid > 0 ? pid : null;
    } catch {
      return null;
    }
  };
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    detach();
    // Signal the postmaster itself (not the runuser wrapper): SIGINT = fast shutdown.
    const pid = postmasterPid();
    if (pid !== null && alive(pid)) {
      process.kill(pid, 'SIGINT');
      const until = Date.now() + 5_000;
      while (alive(pid) && Date.now() < until) await sleep(20);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    if (!exited) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };

  // If the process exits without stop() (a killed bench, a crashed worker), take the server and
  // its files down with it rather than leaving an orphaned postmaster behind.
  const onExit = (): void => {
    if (stopped) return;
    const pid = postmasterPid();
    if (pid !== null && alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    onExit();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('exit', onExit);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const detach = (): void => {
    process.off('exit', onExit);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };

  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited) {
      await stop();
      throw new Error(`postgres exited during startup:\n${log}`);
    }
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 1_000 });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`postgres did not become ready in 30 s:\n${log}`);
      }
      await sleep(50);
    }
  }

  const createDatabase = async (name: string): Promise<string> => {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
    } finally {
      await admin.end();
    }
    return `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(name)}`;
  };
  const url = await createDatabase(database);
  return { url, port, database, createDatabase, stop };
}

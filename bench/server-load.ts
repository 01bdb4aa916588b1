/**
 * HTTP load bench of the Engram server (issue 5).
 *
 *   npx tsx bench/server-load.ts                       # 10k memories, 10 s per run, writes bench/RESULTS-server.md
 *   npx tsx bench/server-load.ts --memories 2000 --duration 5 --out /tmp/r.md
 *
 * The server runs in a child process (`startServer` on the embedded defaults: SQLite in a temp data
 * dir + the local USE-lite embedder); autocannon drives it from this process over 127.0.0.1.
 * Runs: search (POST /v1/recall, a different query per request) with 1, 8 and 64 connections;
 * mixed 90% search / 10% add with 8 and 64 connections. Every run must have zero errors and
 * zero non-2xx; every acknowledged add is read back over HTTP afterwards. Then the server is
 * stopped and the same queries run in process (`Engram.recall` on the same database, same
 * embedder, same concurrency) to show what the HTTP layer costs.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createKey } from '../src/auth/key-admin.js';
import { RemoteEngram } from '../src/client/remote-engram.js';
import type { MemoryInput } from '../src/model/memory.js';
import { openDefaultEngram } from '../src/open-default-engram.js';
import { startServer } from '../src/server/start-server.js';
import { percentile } from './lib/stats.js';
import { mulberry32 } from './lib/synthetic-corpus.js';

const SCOPE = { tenant: 'bench', user: 'load' };

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

const NAMES =
  'Alice Bob Carol Dave Erin Frank Grace Heidi Ivan Judy Mallory Niaj Olivia Peggy Rupert Sybil Trent Victor Walter Yara'.split(
    ' ',
  );
const VERBS =
  'likes|bought|is learning|visited|lost|cooked|borrowed|painted|repaired|recommended|wants to try|sold'.split('|');
const OBJECTS = (
  'green tea|a red bicycle|the piano|sourdough bread|a vintage camera|the chess set|a hiking backpack|' +
  'spicy ramen|an old guitar|the garden shed|a marathon plan|a sailing boat|the Italian cookbook|a telescope|running shoes'
).split('|');
const PLACES =
  'in Paris|at the office|near the lake|in Berlin|at home|in the mountains|at the market|in Lisbon|at school|downtown'.split(
    '|',
  );
const TIMES =
  'last week|yesterday|in 2021|every Sunday|this morning|two years ago|during the holidays|on her birthday'.split('|');

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function corpus(n: number): MemoryInput[] {
  const rand = mulberry32(7);
  return Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    text: `${pick(rand, NAMES)} ${pick(rand, VERBS)} ${pick(rand, OBJECTS)} ${pick(rand, PLACES)} ${pick(rand, TIMES)}`,
    tags: [pick(rand, ['food', 'travel', 'hobby', 'work', 'family'])],
  }));
}

function queries(n: number): string[] {
  const rand = mulberry32(99);
  const forms = [
    () => `what does ${pick(rand, NAMES)} like?`,
    () => `who ${pick(rand, VERBS)} ${pick(rand, OBJECTS)}?`,
    () => `${pick(rand, OBJECTS)} ${pick(rand, PLACES)}`,
    () => `when did ${pick(rand, NAMES)} go ${pick(rand, PLACES)}`,
    () => pick(rand, OBJECTS),
  ];
  return Array.from({ length: n }, () => pick(rand, forms)());
}

interface RunFigures {
  name: string;
  connections: number;
  rps: number;
  /** CPU milliseconds the serving process spent per request (robust to other load on the machine). */
  cpuMs: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

async function serveChild(dataDir: string): Promise<void> {
  await startServer({
    dataDir,
    port: 0,
    handleSignals: true,
    onClosed: (error) => process.exit(error === undefined ? 0 : 1),
  }).then((s) => process.stdout.write(`${JSON.stringify({ url: s.url })}\n`));
}

async function main(): Promise<void> {
  const memories = Number(arg('memories', '10000'));
  const duration = Number(arg('duration', '10'));
  const out = arg('out', fileURLToPath(new URL('./RESULTS-server.md', import.meta.url)));
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-server-load-'));
  const loadBefore = loadavg()[0] ?? 0;
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const { key } = createKey({ dataDir, tenant: SCOPE.tenant });

  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), 'serve', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const { url } = JSON.parse(
    await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve)),
  ) as { url: string };
  log(`server ${url} (pid ${child.pid}), data ${dataDir}`);

  const remote = new RemoteEngram({ url, apiKey: key, timeoutMs: 120_000 });
  const data = corpus(memories);
  const loadStart = performance.now();
  for (let i = 0; i < data.length; i += 500) await remote.addMany(data.slice(i, i + 500), { scope: SCOPE });
  const loadSeconds = (performance.now() - loadStart) / 1000;
  log(`loaded ${memories} memories over HTTP in ${loadSeconds.toFixed(1)} s`);

  const pool = queries(500);
  let q = 0;
  const searchRequest = (): autocannon.Request => ({
    method: 'POST',
    path: '/v1/recall',
    setupRequest: (req) => ({
      ...req,
      body: JSON.stringify({ query: pool[q++ % pool.length], scope: { user: SCOPE.user } }),
    }),
  });
  // Mixed: one request in ten (over all connections) is an add with a fresh id.
  const acked: string[] = [];
  let mixedCounter = 0;
  let addCounter = 0;
  const mixedRequest = (): autocannon.Request => ({
    method: 'POST',
    setupRequest: (req) => {
      if (mixedCounter++ % 10 === 9) {
        const id = `load-${addCounter++}`;
        const body = {
          scope: { user: SCOPE.user },
          memory: { id, text: `Load test note ${id}: ${pool[addCounter % pool.length]}` },
        };
        return { ...req, path: '/v1/memories', body: JSON.stringify(body) };
      }
      return {
        ...req,
        path: '/v1/recall',
        body: JSON.stringify({ query: pool[q++ % pool.length], scope: { user: SCOPE.user } }),
      };
    },
    onResponse: (status, body) => {
      if (status === 201) acked.push((JSON.parse(body) as { memory: { id: string } }).memory.id);
    },
  });
  // HTTP floor: get one memory by id (no embedding, no ranking): what HTTP + auth + validation cost.
  let g = 0;
  const getRequest = (): autocannon.Request => ({
    method: 'GET',
    setupRequest: (req) => ({ ...req, path: `/v1/memories/c${g++ % memories}` }),
  });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  // CPU seconds of the server process, from its own /metrics (prom-client process metrics).
  const serverCpu = async (): Promise<number> => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const match = /^engram_process_cpu_seconds_total ([\d.e+-]+)$/m.exec(text);
    return match ? Number(match[1]) : Number.NaN;
  };
  // autocannon stops sending at the deadline, but the server still works off what is in flight.
  const settle = async () => {
    await remote.recall('settle', { scope: SCOPE });
  };
  const run = async (
    name: string,
    connections: number,
    requests: autocannon.Request[],
    seconds = duration,
  ): Promise<RunFigures> => {
    const cpuBefore = await serverCpu();
    const result = await autocannon({ url, connections, duration: seconds, headers, requests, timeout: 30 });
    await settle();
    // Every sent request (also those still in flight at the deadline) was served before settle() returned.
    const cpuMs = (((await serverCpu()) - cpuBefore) * 1000) / (result.requests.sent + 1);
    const figures = {
      name,
      connections,
      rps: result.requests.average,
      cpuMs,
      p50: result.latency.p50,
      p99: result.latency.p99,
      requests: result.requests.total,
      errors: result.errors + result.timeouts + result.non2xx,
    };
    log(
      `${name} c=${connections}: ${figures.rps.toFixed(0)} req/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, cpu ${cpuMs.toFixed(2)} ms/req, ${figures.requests} requests, ${figures.errors} errors`,
    );
    return figures;
  };

  await run('warm-up', 8, [searchRequest()], 3);
  const http: RunFigures[] = [];
  for (const c of [1, 8, 64]) http.push(await run('search', c, [searchRequest()]));
  for (const c of [8, 64]) http.push(await run('mixed 90/10', c, [mixedRequest()]));
  const floorSeconds = Math.max(2, Math.round(duration / 2));
  for (const c of [1, 8, 64]) http.push(await run('get by id', c, [getRequest()], floorSeconds));

  // Every acknowledged add is readable afterwards, over the API.
  let readable = 0;
  for (let i = 0; i < acked.length; i += 500) {
    const ids = acked.slice(i, i + 500);
    readable += (await remote.list({ scope: SCOPE, ids, limit: 1000 })).items.length;
  }
  log(`acknowledged adds: ${acked.length}, readable afterwards: ${readable}`);

  child.kill('SIGTERM');
  const exitCode = await exited;

  // The same queries in process, on the same database and embedder.
  const engram = await openDefaultEngram({ dataDir });
  await engram.recall('warm up', { scope: SCOPE });
  const local: RunFigures[] = [];
  const inProcess = async (name: string, c: number, seconds: number, call: (i: number) => Promise<unknown>) => {
    const latencies: number[] = [];
    let errors = 0;
    let i = 0;
    const cpuStart = process.cpuUsage();
    const started = performance.now();
    const until = started + seconds * 1000;
    await Promise.all(
      Array.from({ length: c }, async () => {
        while (performance.now() < until) {
          const t = performance.now();
          try {
            await call(i++);
          } catch {
            errors++;
          }
          latencies.push(performance.now() - t);
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuStart);
    latencies.sort((a, b) => a - b);
    const figures = {
      name,
      connections: c,
      rps: latencies.length / elapsed,
      cpuMs: (cpu.user + cpu.system) / 1000 / latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      requests: latencies.length,
      errors,
    };
    log(
      `${name} c=${c}: ${figures.rps.toFixed(0)} calls/s, p50 ${figures.p50.toFixed(2)} ms, p99 ${figures.p99.toFixed(2)} ms, cpu ${figures.cpuMs.toFixed(3)} ms/call`,
    );
    local.push(figures);
  };
  for (const c of [1, 8, 64])
    await inProcess('search in process', c, duration, (i) =>
      engram.recall(pool[i % pool.length] as string, { scope: SCOPE }),
    );
  for (const c of [1, 8, 64])
    await inProcess('get by id in process', c, floorSeconds, (i) => engram.get(`c${i % memories}`, { scope: SCOPE }));
  const stats = await engram.stats({ scope: { tenant: SCOPE.tenant } });
  await engram.close();
  rmSync(dataDir, { recursive: true, force: true });

  const ms = (v: number) => (v < 10 ? v.toFixed(1) : v.toFixed(0));
  const row = (f: RunFigures) =>
    `| ${f.name} | ${f.connections} | ${f.rps.toFixed(0)} | ${ms(f.p50)} | ${ms(f.p99)} | ${f.cpuMs.toFixed(f.cpuMs < 1 ? 3 : 1)} | ${f.requests} | ${f.errors} |`;
  const command = `npx tsx bench/server-load.ts${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}`;
  const cpu = cpus();
  const loadAfter = loadavg()[0] ?? 0;
  const md = `# Server load (issue 5)

Command: \`${command}\` — ${new Date().toISOString().slice(0, 16)} UTC, Node ${process.version}, ${cpu.length} × ${cpu[0]?.model ?? 'cpu'}.
The server (child process, \`startServer\` on the embedded defaults: SQLite in a temp data dir,
local USE-lite embedder, ONNX runtime) and autocannon (this process) share the same ${cpu.length} cores
over 127.0.0.1. Other work shared the machine: 1-minute load average ${loadBefore.toFixed(1)} at the
start and ${loadAfter.toFixed(1)} at the end (on ${cpu.length} cores), so absolute figures are pessimistic.

Corpus: ${memories} synthetic memories in one (tenant, user) scope, loaded over HTTP with batch
imports of 500 in ${loadSeconds.toFixed(1)} s (${(memories / loadSeconds).toFixed(0)} memories/s, embedding included).
Each search is \`POST /v1/recall\` with a different query (500-query pool), default options
(limit 5, threshold 0.1, profile engram), query embedding included.

| run | connections | req/s | p50 ms | p99 ms | CPU ms / request | requests | errors + non-2xx |
|---|---|---|---|---|---|---|---|
${http.map(row).join('\n')}
${local.map(row).join('\n')}

- Mixed runs: every tenth request (counted over all connections) is an add (\`POST /v1/memories\`
  with a fresh id), the others are searches. Acknowledged adds: ${acked.length}; read back over
  HTTP afterwards: ${readable}. Memories in the database at the end: ${stats.total}.
- "CPU ms / request": CPU time of the serving process (user + system, from its own
  \`/metrics\` for HTTP; \`process.cpuUsage()\` in process) divided by the requests sent. It depends
  much less than latency and throughput on what else runs on the machine, so the HTTP cost is
  roughly the difference between an HTTP row and the matching in-process row.
- "get by id" rows: \`GET /v1/memories/{id}\` (no embedding, no ranking): the floor cost of a
  request (HTTP parsing, key check = SQLite lookup + SHA-256, validation, one SQLite read, JSON).
- Server exit code after SIGTERM: ${exitCode}.
- "in process" rows: the same calls through \`Engram.recall\` / \`Engram.get\` on the same database
  after the server stopped, with the given number of concurrent callers; the difference to the
  HTTP rows is the cost of HTTP + JSON + auth + validation (and of sharing the cores with the
  load generator).
- Between runs the bench waits until the server has drained the previous run's in-flight
  requests (one sequential search must complete), so a run does not inherit a backlog.
`;
  writeFileSync(out, md);
  log(`wrote ${out}`);
  const failed =
    http.some((f) => f.errors > 0) || local.some((f) => f.errors > 0) || readable !== acked.length || exitCode !== 0;
  if (failed) {
    log('FAILED: errors, unreadable acknowledged writes or a bad exit code');
    process.exitCode = 1;
  }
}

if (process.argv[2] === 'serve') await serveChild(process.argv[3] as string);
else await main();

import { spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatContextBlock } from '../../src/inject/context-block.js';
import type { Hit } from '../../src/model/hit.js';
import { listeningUrl, watchOutput } from '../support/child-output.js';
import type { LocalHttpServer } from '../support/local-http-server.js';
import { memory } from '../support/memory-fixture.js';
import { startPgCluster, type PgCluster } from '../support/pg-cluster.js';
import { describeRun, run, type Run } from '../package/packed-project.js';
import { codeBlocks, type CodeBlock } from './code-blocks.js';
import { startDocServices } from './doc-services.js';
import { BLOCKS, docFiles, PG_URL, SHELL_LINES, type LineHandling, type Replacements } from './doc-table.js';

const REPO = process.cwd();
const TSX_LOADER = pathToFileURL(join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const CLI = join(REPO, 'src', 'cli', 'bin.ts');
const blocks = docFiles(REPO).flatMap((file) => codeBlocks(REPO, file));
const keyOf = (block: CodeBlock): string => `${block.file}#${block.index}`;
const fileNameOf = (block: CodeBlock): string => keyOf(block).replace(/[^\w]+/g, '-');
/** The commands of a shell block: comment lines dropped, trailing comments cut. */
const commandsOf = (block: CodeBlock): string[] =>
  block.code
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

let work: string;
let services: LocalHttpServer;
let pg: PgCluster;

/** This process's environment without Engram's variables, plus the local services for the docs. */
function docEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(ENGRAM_|OPENAI_|npm_)/i.test(name) && name !== 'NODE_OPTIONS') env[name] = value;
  }
  return {
    ...env,
    OPENAI_BASE_URL: `${services.url}/v1`,
    OPENAI_API_KEY: 'sk-docs-test',
    ENGRAM_LLM: 'openai:gpt-4o-mini',
    ENGRAM_LLM_BASE_URL: `${services.url}/v1`,
    ENGRAM_RERANK_URL: `${services.url}/rerank`,
    ENGRAM_SEARXNG_URL: services.url,
    TSX_TSCONFIG_PATH: join(work, 'tsconfig.json'),
    ...extra,
  };
}

function applied(text: string, replace: Replacements = []): string {
  return replace.reduce((out, [from, to]) => out.split(from).join(to === PG_URL ? pg.url : to), text);
}

/** A fresh folder with what the docs' commands read: memories.jsonl, cases.jsonl and a tiny LoCoMo-format file. */
function freshFolder(name: string): string {
  const folder = mkdtempSync(join(work, `${name}-`));
  copyFileSync(join(REPO, 'examples', 'sample-memories.jsonl'), join(folder, 'memories.jsonl'));
  copyFileSync(join(REPO, 'examples', 'eval-cases.jsonl'), join(folder, 'cases.jsonl'));
  const turns = [
    { speaker: 'Ana', dia_id: 'D1:1', text: 'I adopted a puppy named Biscuit!' },
    { speaker: 'Ben', dia_id: 'D1:2', text: 'Congrats, what breed is he?' },
  ];
  const sample = {
    sample_id: 'conv-x',
    conversation: {
      speaker_a: 'Ana',
      speaker_b: 'Ben',
      session_1_date_time: '1:56 pm on 8 May, 2023',
      session_1: turns,
    },
  };
  writeFileSync(
    join(folder, 'locomo.json'),
    JSON.stringify([{ ...sample, qa: [], observation: {}, session_summary: {}, event_summary: {} }]),
  );
  return folder;
}

/** `npx engram …` runs the CLI from the sources; any other npx is refused. */
const NPX = `npx() { if [ "$1" = engram ]; then shift; exec node --import '${TSX_LOADER}' '${CLI}' "$@"; fi; echo "npx $1: not run by test/docs" >&2; return 127; }`;

function requestsSince(from: number): string[] {
  return services.requests.slice(from).map((r) => `${r.method} ${new URL(r.url, 'http://local').pathname}`);
}

async function runServerLine(command: string, cwd: string): Promise<string> {
  const child = spawn('bash', ['-c', `${NPX}\n${command}`], {
    cwd,
    env: docEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = watchOutput(child, command);
  try {
    const url = await listeningUrl(output);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    process.kill(-(child.pid as number), 'SIGTERM');
    return (await output.closed).stdout;
  } finally {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

async function runLine(command: string, handling: Extract<LineHandling, { run: true }>, cwd: string): Promise<void> {
  const line = applied(command, handling.replace);
  const before = services.requests.length;
  let output: string;
  if (handling.server) {
    output = await runServerLine(line, cwd);
  } else {
    const result: Run = await run('bash', ['-c', `${NPX}\n${line}`], { cwd, env: docEnv(), timeoutMs: 120_000 });
    expect(result.code, describeRun(line, result)).toBe(0);
    output = result.stdout + result.stderr;
  }
  if (handling.output) expect(output, line).toMatch(handling.output);
  for (const request of handling.requests ?? []) expect(requestsSince(before), line).toContain(request);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'engram-docs-'));
  [services, pg] = await Promise.all([startDocServices(), startPgCluster({ database: 'docs' })]);
  symlinkSync(realpathSync(join(REPO, 'node_modules')), join(work, 'node_modules'), 'dir');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ type: 'module' }));
  const paths = {
    'engram-memory': [join(REPO, 'src', 'index.ts')],
    'engram-memory/*': [join(REPO, 'src', '*', 'index.ts')],
  };
  const tsconfig = {
    extends: join(REPO, 'tsconfig.json'),
    compilerOptions: { noEmit: true, rootDir: '/', paths },
    include: ['snippets/*.ts'],
  };
  writeFileSync(join(work, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  mkdirSync(join(work, 'snippets'));
  mkdirSync(join(work, 'run'));
  for (const block of blocks.filter((b) => b.lang === 'ts'))
    writeFileSync(join(work, 'snippets', `${fileNameOf(block)}.ts`), block.code);
}, 120_000);

afterAll(async () => {
  await services?.close();
  await pg?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('the code blocks of README.md, PACKAGE-README.md and docs/', { timeout: 240_000 }, () => {
  it('has a handling for every code block and a code block for every handling', () => {
    expect(blocks.map(keyOf).sort()).toEqual(Object.keys(BLOCKS).sort());
    for (const block of blocks) expect(block.lang, keyOf(block)).toBe(BLOCKS[keyOf(block)]?.lang);
  });

  it('has a handling for every shell line and a shell line for every handling', () => {
    const lines = blocks.filter((b) => BLOCKS[keyOf(b)]?.kind === 'shell').flatMap(commandsOf);
    expect(lines.filter((line) => SHELL_LINES[line] === undefined)).toEqual([]);
    expect(Object.keys(SHELL_LINES).filter((line) => !lines.includes(line))).toEqual([]);
  });

  it('starts README.md with the two repository commands, and .ci/run calls its test command', () => {
    const first = blocks.find((b) => keyOf(b) === 'README.md#1') as CodeBlock;
    expect(readFileSync(join(REPO, 'README.md'), 'utf8').startsWith('# Engram\n\n```sh\n')).toBe(true);
    expect(commandsOf(first)).toEqual(['npm install && npm start', 'npm test']);
    expect(readFileSync(join(REPO, '.ci', 'run'), 'utf8').split('\n')).toContain('npm test');
  });

  it('type-checks every TypeScript block against the sources', async () => {
    const result = await run(
      process.execPath,
      [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(work, 'tsconfig.json')],
      {
        cwd: work,
        env: docEnv(),
      },
    );
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  for (const block of blocks) {
    const key = keyOf(block);
    const handling = BLOCKS[key];
    if (handling?.kind === 'run-ts') {
      it(`runs ${key} (${block.heading})`, async () => {
        const file = join(work, 'run', `${fileNameOf(block)}.ts`);
        writeFileSync(file, applied(block.code, handling.replace));
        const before = services.requests.length;
        const env = handling.openai ? docEnv() : docEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:9', OPENAI_API_KEY: '' });
        const result = await run(process.execPath, ['--import', TSX_LOADER, file], {
          cwd: freshFolder('ts'),
          env,
          timeoutMs: 120_000,
        });
        expect(result.code, describeRun(key, result)).toBe(0);
        for (const pattern of handling.stdout) expect(result.stdout).toMatch(pattern);
        if (handling.received)
          expect(JSON.stringify(services.requests.slice(before).map((r) => r.body))).toMatch(handling.received);
      });
    } else if (handling?.kind === 'shell') {
      it(`runs the shell lines of ${key} (${block.heading}) in order`, async () => {
        const cwd = freshFolder('sh');
        for (const command of commandsOf(block)) {
          const line = SHELL_LINES[command];
          if (line?.run === true) await runLine(command, line, cwd);
          else expect(line?.why, command).toMatch(/\w{3,}/);
        }
      });
    } else if (handling?.kind === 'context-block') {
      it(`${key} is what formatContextBlock prints for the memories it shows`, () => {
        const hit = (id: string, text: string, statedAt: string | null, summary: string | null = null): Hit => ({
          memory: memory(id, text, { statedAt, summary }),
          score: 0.5,
          explanation: {
            channels: ['dense'],
            cosine: 0.5,
            bm25: 0,
            bm25Raw: 0,
            denseWeight: 0.85,
            lexicalWeight: 0.15,
            fused: 0.5,
          },
        });
        const hits = [
          hit('a', 'User is allergic to peanuts.', '2026-05-01T09:30:00.000Z', 'Food allergies'),
          hit('b', 'User prefers spicy food.', '2026-06-12T18:05:00.000Z'),
          ...['c', 'd', 'e'].map((id) => hit(id, `Another memory ${id}.`, null)),
        ];
        expect(formatContextBlock(hits, { maxMemories: 2 })?.text).toBe(block.code.trimEnd());
      });
    } else if (handling?.kind === 'layout') {
      it(`${key} names files and folders that exist`, () => {
        const paths = block.code.match(/\b(?:src|bench|test|web|docs)\/[\w./-]*/g) ?? [];
        expect(paths.length).toBeGreaterThan(10);
        expect(paths.filter((path) => !existsSync(join(REPO, path)))).toEqual([]);
      });
    }
  }
});

import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/*
 * How test/docs handles every code block of README.md, PACKAGE-README.md and docs/, and every
 * line of their shell blocks. A block or line missing here fails the test, so a new snippet is
 * either run, type-checked, compared, or marked not runnable with the reason.
 */

/** Markdown files whose code blocks are checked: the READMEs, the changelog and every page of docs/. */
export function docFiles(root: string): string[] {
  const pages = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md'));
  return [
    'README.md',
    'PACKAGE-README.md',
    'CHANGELOG.md',
    ...pages.sort().map((f) => `docs/${f.split('\\').join('/')}`),
  ];
}

/** Text replaced before running (a fixed port the test must not take, a server the test starts). */
export type Replacements = ReadonlyArray<readonly [string, string]>;

/** The placeholder for the PostgreSQL URL of the server the test starts. */
export const PG_URL = '<postgres url>';

export type BlockHandling =
  /**
   * Type-checked against the sources, then run in a fresh folder: stdout must match; with
   * `openai`, `new OpenAI()` talks to the local services, whose requests must match `received`.
   */
  | { kind: 'run-ts'; lang: 'ts'; openai?: boolean; replace?: Replacements; stdout: RegExp[]; received?: RegExp }
  /** Each line handled by {@link SHELL_LINES}, in order, in one fresh folder. */
  | { kind: 'shell'; lang: 'sh' }
  /** Sample output of `formatContextBlock`, compared with what it produces for the same memories. */
  | { kind: 'context-block'; lang: '' }
  /** The source tree: every path it names must exist. */
  | { kind: 'layout'; lang: '' };

export const BLOCKS: Record<string, BlockHandling> = {
  'README.md#1': { kind: 'shell', lang: 'sh' },
  'README.md#2': { kind: 'run-ts', lang: 'ts', stdout: [/Alice is allergic to peanuts/, /channels: \[ 'dense'/] },
  'README.md#3': { kind: 'shell', lang: 'sh' },
  'README.md#4': { kind: 'layout', lang: '' },
  'PACKAGE-README.md#1': { kind: 'shell', lang: 'sh' },
  'PACKAGE-README.md#2': { kind: 'run-ts', lang: 'ts', stdout: [/text: 'Alice is allergic to peanuts'/] },
  'PACKAGE-README.md#3': { kind: 'run-ts', lang: 'ts', openai: true, stdout: [] },
  'PACKAGE-README.md#4': { kind: 'shell', lang: 'sh' },
  'docs/inject.md#1': {
    kind: 'run-ts',
    lang: 'ts',
    openai: true,
    stdout: [/^engram: injected$/m, /^Try a peanut-free vegetable curry\.$/m],
    // The recall scope has no session: Alice's user-level memory is in the request.
    received: /<engram_context>[^<]*Alice is allergic to peanuts/,
  },
  'docs/inject.md#2': { kind: 'context-block', lang: '' },
  'docs/server.md#1': { kind: 'shell', lang: 'sh' },
  'docs/server.md#2': {
    kind: 'run-ts',
    lang: 'ts',
    replace: [['port: 8787', 'port: 0']],
    stdout: [/\[ 'Alice prefers green tea' \]/],
  },
  'docs/server.md#3': {
    kind: 'run-ts',
    lang: 'ts',
    replace: [['port: 8787', 'port: 0']],
    stdout: [/\[ 'Bob cycles to work' \]/],
  },
  'docs/formation.md#1': {
    kind: 'run-ts',
    lang: 'ts',
    stdout: [/^now: Ana moved to Berlin last month \(2026-02\); in 2025: Ana lives in Lisbon$/m],
  },
  'docs/inspector.md#1': { kind: 'shell', lang: 'sh' },
  'docs/safety.md#1': { kind: 'shell', lang: 'sh' },
};

export type LineHandling =
  /**
   * Run (after `replace`): exit 0, stdout or stderr matching `output`, the local services receiving
   * `requests` (`METHOD /path`). `server`: wait until it listens, check /healthz, then SIGTERM.
   */
  | { run: true; replace?: Replacements; output?: RegExp; server?: boolean; requests?: string[] }
  | { run: false; why: string };

/** Every shell line of the docs, without its trailing comment. `npx engram` runs the CLI from the sources. */
export const SHELL_LINES: Record<string, LineHandling> = {
  'npm install && npm start': {
    run: false,
    why: 'installs the repository and starts a server that runs until stopped; .ci/run runs the install, and serve --demo runs from docs/inspector.md',
  },
  'npm test': { run: false, why: 'the whole suite (this test is part of it); .ci/run must call it, checked below' },
  'npm install engram-memory': {
    run: false,
    why: 'installs from the registry; test/package installs the packed tarball this way',
  },
  'npm run build:web': {
    run: false,
    why: 'writes web/dist, which the e2e inspector tests build and read while this test runs',
  },
  'npx engram add "User prefers window seats" --user alice --type PreferenceMemory': {
    run: true,
    output: /^added \S+/,
  },
  'npx engram scrub --dry-run': { run: true, output: /dry run: scanned 0 memories of tenant default, would change 0/ },
  'npx engram scrub': { run: true, output: /scanned 0 memories of tenant default, changed 0/ },
  'npx engram import memories.jsonl --user alice': { run: true, output: /imported 26 memories \(jsonl\)/ },
  'npx engram import locomo.json': { run: true, output: /imported 2 memories \(locomo\)/ },
  'npx engram recall "where does alice like to sit" --user alice --explain': { run: true, output: /window seats/ },
  'npx engram search "where does alice like to sit" --user alice --explain': { run: true, output: /window seats/ },
  'npx engram search "plan my trip" --user alice --mode fine --types long-term,preference,outer --reranker http --internet':
    {
      run: true,
      output: /\S/,
      requests: ['POST /v1/chat/completions', 'POST /rerank', 'GET /search'],
    },
  'npx engram eval cases.jsonl --user alice --vs profile=seed': { run: true, output: /^MRR\s+\d/m },
  'npx engram stats --user alice': { run: true, output: /^total: 27$/m },
  'npx engram reembed --user alice --embedder openai:text-embedding-3-small': {
    run: true,
    output: /re-embedded 27 memories/,
    requests: ['POST /v1/embeddings'],
  },
  'npx engram serve --data-dir .engram': {
    run: true,
    server: true,
    replace: [['--data-dir .engram', '--data-dir .engram --port 0']],
  },
  'npx engram keys create --tenant acme': { run: true, output: /egk_/ },
  'npx engram export --out backup.jsonl': { run: true, output: /exported 29 memories of tenant default/ },
  'npx engram --store postgres://localhost/engram restore backup.jsonl': {
    run: true,
    replace: [['postgres://localhost/engram', PG_URL]],
    output: /restored 29 memories/,
  },
  'npx engram --store postgres://localhost/engram migrate': {
    run: true,
    replace: [['postgres://localhost/engram', PG_URL]],
    output: /postgres schema is up to date/,
  },
  'npx engram keys create --tenant acme --data-dir .engram': { run: true, output: /egk_/ },
  'npx engram recall "what can alice eat" --user alice --explain': { run: true, output: /peanuts/ },
  'npx engram serve': { run: true, server: true, replace: [['serve', 'serve --port 0']] },
  'npx engram serve --demo --data-dir .engram': {
    run: true,
    server: true,
    replace: [['--data-dir .engram', '--data-dir .engram --port 0']],
    output: /API key for tenant default/,
  },
};

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { openKeyStore, type KeyStore } from '../../src/auth/key-store.js';
import { Engram } from '../../src/engram.js';
import type { MemoryInput } from '../../src/model/memory.js';
import { startServer, type RunningServer } from '../../src/server/start-server.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';

/** Debian's Chromium (`apt-get install -y chromium`; `scripts/ensure-chromium.sh` in CI). */
export const CHROMIUM_PATH = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * Screenshots of the main views are taken on every run; they replace the committed ones in
 * docs/screenshots only with ENGRAM_UPDATE_SCREENSHOTS=1 (so a test run leaves the tree clean).
 */
export const SCREENSHOT_DIR =
  process.env.ENGRAM_UPDATE_SCREENSHOTS === '1'
    ? join(REPO_ROOT, 'docs', 'screenshots')
    : mkdtempSync(join(tmpdir(), 'engram-screenshots-'));

/** Fails (never skips) when Chromium is missing: the inspector tests must run in CI. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: the memory inspector end-to-end tests need it. ` +
        'Install it with `sh scripts/ensure-chromium.sh` (apt-get install -y chromium), or point ENGRAM_CHROMIUM at a Chromium binary.',
    );
  }
}

/** Builds the page into web/dist with the project's own vite config (nothing built is committed). */
export async function buildInspector(): Promise<void> {
  await build({ configFile: join(REPO_ROOT, 'web', 'vite.config.ts'), logLevel: 'error' });
}

/** The text of a memory that tries to run script in the page. It must show as text. */
export const ATTACK_TEXT =
  'Note <script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> about <b>bold</b> tea';

const DAY = 24 * 3600 * 1000;
const statedAt = (daysAgo: number) => new Date(Date.UTC(2026, 10, 1) - daysAgo * DAY).toISOString();

/** Tenant A, user alice: enough memories for more than one page of 10. */
export const ALICE: MemoryInput[] = [
  {
    text: 'Alice is allergic to peanuts and carries an epinephrine pen',
    type: 'UserMemory',
    key: 'allergy',
    tags: ['health', 'food'],
    level: 'fact',
    statedAt: statedAt(40),
    sources: [{ type: 'chat', id: 'D1:3', role: 'user', content: 'I am allergic to peanuts, so no satay for me.' }],
    metadata: { confidence: 0.9, origin: 'import' },
  },
  {
    text: 'Alice prefers vegetarian dinners during the week',
    type: 'PreferenceMemory',
    key: 'diet',
    tags: ['food', 'dinner'],
    level: 'fact',
    statedAt: statedAt(30),
  },
  {
    text: 'Alice cooks pasta with tomato sauce on Fridays',
    type: 'LongTermMemory',
    key: 'cooking',
    tags: ['food', 'dinner'],
    level: 'fact',
    statedAt: statedAt(25),
  },
  {
    text: 'Alice likes window seats on long flights',
    type: 'PreferenceMemory',
    key: 'travel',
    tags: ['travel'],
    level: 'fact',
    statedAt: statedAt(20),
  },
  {
    text: 'Alice is training for the Berlin marathon in September',
    type: 'LongTermMemory',
    key: 'sport',
    tags: ['sport', 'running'],
    level: 'concept',
    statedAt: statedAt(18),
  },
  {
    text: 'Alice works as a data engineer at a logistics company',
    type: 'UserMemory',
    key: 'work',
    tags: ['work'],
    level: 'fact',
    statedAt: statedAt(16),
  },
  {
    text: 'Alice has a cat called Miso who eats salmon treats',
    type: 'LongTermMemory',
    key: 'pets',
    tags: ['pets'],
    level: 'fact',
    statedAt: statedAt(15),
  },
  {
    text: 'Alice is learning Japanese with evening classes',
    type: 'LongTermMemory',
    key: 'learning',
    tags: ['language'],
    level: 'topic',
    statedAt: statedAt(12),
  },
  {
    text: 'Alice dislikes coriander in any dinner dish',
    type: 'PreferenceMemory',
    key: 'diet',
    tags: ['food', 'dinner'],
    level: 'fact',
    statedAt: statedAt(10),
  },
  {
    text: 'Alice booked a trip to Lisbon for the spring',
    type: 'LongTermMemory',
    key: 'travel',
    tags: ['travel'],
    level: 'fact',
    statedAt: statedAt(8),
  },
  {
    text: 'Alice drinks oat milk in her coffee',
    type: 'PreferenceMemory',
    key: 'diet',
    tags: ['food'],
    level: 'fact',
    statedAt: statedAt(6),
  },
  {
    text: 'Alice plays the cello in a community orchestra',
    type: 'LongTermMemory',
    key: 'music',
    tags: ['music'],
    level: 'fact',
    statedAt: statedAt(5),
  },
  {
    text: 'Alice wants quick dinner recipes under thirty minutes',
    type: 'PreferenceMemory',
    key: 'cooking',
    tags: ['food', 'dinner'],
    level: 'fact',
    statedAt: statedAt(3),
  },
  {
    text: ATTACK_TEXT,
    type: 'LongTermMemory',
    key: 'attack',
    tags: ['<i>tag</i>'],
    level: 'fact',
    statedAt: statedAt(2),
    metadata: { html: '<img src=x onerror="window.__pwned = 3">' },
  },
];

/** Tenant A, user bob. */
export const BOB: MemoryInput[] = [
  {
    text: 'Bob is a vegan and avoids honey',
    type: 'UserMemory',
    key: 'diet',
    tags: ['food'],
    level: 'fact',
    statedAt: statedAt(9),
  },
  {
    text: 'Bob cycles to work every day',
    type: 'LongTermMemory',
    key: 'sport',
    tags: ['sport'],
    level: 'fact',
    statedAt: statedAt(7),
  },
];

/** Tenant B: text that must never appear to tenant A's key. */
export const TENANT_B_SECRET = 'Zephyr launch code for tenant beta dinner plans is 4417';
export const CAROL: MemoryInput[] = [
  {
    text: TENANT_B_SECRET,
    type: 'UserMemory',
    key: 'secret',
    tags: ['food', 'dinner'],
    level: 'fact',
    statedAt: statedAt(4),
  },
  {
    text: 'Carol prefers vegetarian dinner recipes with peanuts',
    type: 'PreferenceMemory',
    key: 'diet',
    tags: ['food', 'dinner'],
    level: 'fact',
    statedAt: statedAt(3),
  },
];

/** Tenant A, user dana, collection `team` (the only memories a `team`-limited key may see). */
export const TEAM_TEXT = 'Dana keeps the team dinner budget in the shared sheet';
export const DANA_OTHER_TEXT = 'Dana private dinner note outside the team collection';

/** Tenant A, user erin: two conversations, the second superseding the first (formed by the rules). */
export const ERIN_SAYS = [
  ['I live in Lisbon.', '2025-05-10T09:00:00Z', 'e1'],
  ['I moved to Berlin last month.', '2026-03-04T10:00:00Z', 'e2'],
] as const;

/** A real server (startServer) on a real SQLite file, with keys for two tenants and imported memories. */
export interface InspectorServer {
  url: string;
  server: RunningServer;
  keys: { a: string; aReadOnly: string; aTeam: string; b: string };
  /** A new read-write key for `tenant`. */
  mintKey(tenant: string): string;
  /** Revokes a key (by its secret) in the server's key store. */
  revoke(key: string): void;
  /** A JSON call to the API with a key. */
  api<T>(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: T }>;
  close(): Promise<void>;
}

/** Starts the server and imports the fixture memories through the batch endpoint. */
export async function startInspectorServer(): Promise<InspectorServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'engram-inspector-'));
  const engram = await Engram.open({
    store: createSqliteStore({ path: join(dataDir, 'engram.sqlite') }),
    embedder: new HashedEmbedder(),
    // Erin's conversations are formed into facts (no LLM: the rule-based extractor).
    formation: { extractor: 'rules', worker: { pollMs: 20 } },
  });
  const keyStore: KeyStore = openKeyStore({ path: join(dataDir, 'keys.sqlite') });
  const server = await startServer({
    dataDir,
    port: 0,
    engram,
    keys: keyStore,
    closeEngram: true,
    validateResponses: true,
  });
  const keys = {
    a: keyStore.create({ tenant: 'acme', name: 'inspector e2e' }).key,
    aReadOnly: keyStore.create({ tenant: 'acme', access: 'read' }).key,
    aTeam: keyStore.create({ tenant: 'acme', access: 'read', collections: ['team'] }).key,
    b: keyStore.create({ tenant: 'beta' }).key,
  };
  const api = async <T>(method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as T };
  };
  for (const [key, scope, memories] of [
    [keys.a, { user: 'alice' }, ALICE],
    [keys.a, { user: 'bob' }, BOB],
    [keys.a, { user: 'dana', collection: 'team' }, [{ text: TEAM_TEXT, type: 'LongTermMemory' }]],
    [keys.a, { user: 'dana' }, [{ text: DANA_OTHER_TEXT, type: 'LongTermMemory' }]],
    [keys.b, { user: 'carol' }, CAROL],
  ] as const) {
    const imported = await api<{ memories: unknown[] }>('POST', '/v1/memories/batch', key, { scope, memories });
    if (imported.status !== 201) throw new Error(`import failed: ${imported.status} ${JSON.stringify(imported.json)}`);
  }
  for (const [text, occurredAt, session] of ERIN_SAYS) {
    const messages = [{ role: 'user', speaker: 'Erin', text, occurredAt, session }];
    const remembered = await api('POST', '/v1/remember', keys.a, { scope: { user: 'erin' }, messages });
    if (remembered.status !== 200)
      throw new Error(`remember failed: ${remembered.status} ${JSON.stringify(remembered.json)}`);
    await engram.idle();
  }
  return {
    url: server.url,
    server,
    keys,
    api,
    mintKey: (tenant: string) => keyStore.create({ tenant }).key,
    revoke(key: string) {
      const id = /^egk_([a-z0-9]+)_/.exec(key)?.[1];
      if (id === undefined || !keyStore.revoke(id)) throw new Error('no such key to revoke');
    },
    async close() {
      await server.close();
      keyStore.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Headless Chromium with a fresh profile; every request off the server's origin is blocked and recorded. */
export interface InspectorBrowser {
  context: BrowserContext;
  /** A new tab with page errors and failed requests recorded. */
  newPage(): Promise<Page>;
  /** Requests the pages tried to make to anything but the server (must stay empty: no CDN, no fonts). */
  offsite: string[];
  /** Uncaught errors in the pages. */
  pageErrors: string[];
  close(): Promise<void>;
}

/** Launches Debian's Chromium through playwright-core. */
export async function launchInspectorBrowser(serverUrl: string): Promise<InspectorBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'engram-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1200, height: 820 },
    deviceScaleFactor: 1,
    timeout: 30_000,
  });
  const origin = new URL(serverUrl).origin;
  const offsite: string[] = [];
  const pageErrors: string[] = [];
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:')) return route.continue();
    offsite.push(url);
    return route.abort('blockedbyclient');
  });
  return {
    context,
    offsite,
    pageErrors,
    async newPage() {
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.setDefaultTimeout(10_000);
      return page;
    },
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

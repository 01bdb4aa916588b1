import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ATTACK_TEXT,
  buildInspector,
  DANA_OTHER_TEXT,
  launchInspectorBrowser,
  requireChromium,
  SCREENSHOT_DIR,
  startInspectorServer,
  TEAM_TEXT,
  TENANT_B_SECRET,
  type InspectorBrowser,
  type InspectorServer,
} from './inspector-fixture.js';

let server: InspectorServer;
let browser: InspectorBrowser;
/** Set when Chromium is missing: every test then fails with this message (a failure, never a skip). */
let missingChromium: Error | undefined;

beforeAll(async () => {
  try {
    requireChromium();
  } catch (error: unknown) {
    missingChromium = error as Error;
    return;
  }
  await buildInspector();
  server = await startInspectorServer();
  browser = await launchInspectorBrowser(server.url);
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
}, 60_000);

beforeEach(() => {
  if (missingChromium) throw missingChromium;
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** Opens the inspector in a fresh tab and enters `key` at the gate. */
async function signIn(key: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(`${server.url}/inspector/`);
  await page.getByTestId('key-input').fill(key);
  await page.getByTestId('key-submit').click();
  await page.getByTestId('tenant').waitFor();
  return page;
}

async function rowTexts(page: Page): Promise<string[]> {
  return page.getByTestId('memory-text').allTextContents();
}

describe('memory inspector in headless Chromium', () => {
  it('shows nothing without a key and refuses a wrong one', async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${server.url}/inspector/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.getByTestId('key-gate').waitFor();
    expect(await page.getByTestId('memory-row').count()).toBe(0);
    expect(await page.getByTestId('tab-browse').count()).toBe(0);
    await page.getByTestId('key-input').fill('egk_k000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    await page.getByTestId('key-submit').click();
    await expect.poll(() => page.getByTestId('key-status').textContent()).toContain('does not accept this key');
    const body = (await page.textContent('body')) ?? '';
    expect(body).not.toContain('Alice');
    expect(body).not.toContain(TENANT_B_SECRET);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await screenshot(page, 'key-gate');
    await page.close();
  });

  it('browses a scope: columns, filter, paging, details with sources and metadata', async () => {
    const page = await signIn(server.keys.a);
    expect(await page.getByTestId('tenant').textContent()).toBe('tenant acme');
    // The key is kept for this tab only.
    expect(await page.evaluate("sessionStorage.getItem('engram.inspector.apiKey')")).toBe(server.keys.a);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(await page.context().cookies()).toEqual([]);

    await page.getByTestId('scope-user').fill('alice');
    await page.getByTestId('scope-apply').click();
    await page.getByTestId('page-size').selectOption('10');
    await expect.poll(() => page.getByTestId('page-info').textContent()).toBe('page 1 · 10 shown');
    const first = await rowTexts(page);
    expect(first).toHaveLength(10);
    await page.getByTestId('page-next').click();
    await expect.poll(() => page.getByTestId('page-info').textContent()).toBe('page 2 · 4 shown');
    const second = await rowTexts(page);
    expect(new Set([...first, ...second]).size).toBe(14);
    expect([...first, ...second].some((t) => t.startsWith('Bob'))).toBe(false);
    await page.getByTestId('page-prev').click();
    await expect.poll(() => page.getByTestId('page-info').textContent()).toBe('page 1 · 10 shown');

    await page.getByTestId('page-size').selectOption('25');
    await page.getByTestId('filter-type').selectOption('PreferenceMemory');
    await expect.poll(async () => (await rowTexts(page)).length).toBe(5);
    expect((await rowTexts(page)).every((t) => /prefers|likes|dislikes|drinks|wants/.test(t))).toBe(true);
    await page.getByTestId('filter-type').selectOption('');
    await page.getByTestId('filter-key').fill('diet');
    await page.getByTestId('browse-apply').click();
    await expect.poll(async () => (await rowTexts(page)).length).toBe(3);
    await page.getByTestId('filter-key').fill('');
    await page.getByTestId('browse-apply').click();
    await expect.poll(async () => (await rowTexts(page)).length).toBe(14);

    const allergy = page.getByTestId('memory-row').filter({ hasText: 'allergic to peanuts' });
    const cells = await allergy.locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual(['User', 'health, food', 'allergy', 'fact']);
    expect(cells[5]).toBe('2026-09-22 00:00 UTC');
    expect(cells[7]).toBe('0');
    await allergy.click();
    const detail = page.getByTestId('memory-detail');
    await detail.waitFor();
    expect(await page.getByTestId('detail-sources').textContent()).toContain(
      'I am allergic to peanuts, so no satay for me.',
    );
    expect(JSON.parse((await page.getByTestId('detail-metadata').textContent()) ?? '')).toEqual({
      confidence: 0.9,
      origin: 'import',
    });
    expect(await detail.textContent()).toContain('tenant=acme user=alice');
    await page.evaluate('window.scrollTo(0, 0)');
    await screenshot(page, 'browse');
    await detail.screenshot({ path: join(SCREENSHOT_DIR, 'memory-detail.png') });
    await page.close();
  });

  it('marks a superseded memory in the list, and shows every memory’s timeline on its page', async () => {
    const page = await signIn(server.keys.a);
    await page.getByTestId('scope-user').fill('erin');
    await page.getByTestId('scope-apply').click();
    await page.getByTestId('filter-type').selectOption('UserMemory');
    await expect.poll(async () => (await rowTexts(page)).length).toBe(2);
    const lisbon = page.getByTestId('memory-row').filter({ hasText: 'Erin lives in Lisbon' });
    const berlin = page.getByTestId('memory-row').filter({ hasText: 'Erin moved to Berlin' });
    expect(await lisbon.getByTestId('row-superseded').textContent()).toBe('superseded');
    expect(await berlin.getByTestId('row-superseded').count()).toBe(0);

    await lisbon.click();
    await page.getByTestId('memory-detail').waitFor();
    expect(await page.getByTestId('detail-superseded').textContent()).toMatch(/^Superseded on 2026-02-01 by \S+$/);
    const events = page.getByTestId('timeline-event');
    await expect.poll(() => events.count()).toBe(2);
    expect(await events.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-kind')))).toEqual([
      'created',
      'superseded',
    ]);
    expect(await events.nth(1).textContent()).toContain('valid 2025-05-10 – 2026-02-01 · superseded by');
    expect(await events.nth(1).textContent()).toContain('formation (decided by rules');
    await page.getByTestId('memory-detail').screenshot({ path: join(SCREENSHOT_DIR, 'memory-timeline.png') });

    await berlin.click();
    await expect.poll(() => page.getByTestId('timeline-event').count()).toBe(1);
    expect(await page.getByTestId('detail-superseded').count()).toBe(0);
    expect(await page.getByTestId('timeline-event').first().getAttribute('data-kind')).toBe('created');
    await page.close();
  });

  it('renders memory text containing <script> and <img onerror> as text, everywhere', async () => {
    const page = await signIn(server.keys.a);
    await page.getByTestId('scope-user').fill('alice');
    await page.getByTestId('scope-apply').click();
    const row = page.getByTestId('memory-row').filter({ hasText: '<script>' });
    await row.waitFor();
    expect(await row.getByTestId('memory-text').textContent()).toBe(ATTACK_TEXT);
    await row.click();
    expect(await page.getByTestId('detail-text').textContent()).toBe(ATTACK_TEXT);
    expect(await page.getByTestId('detail-metadata').textContent()).toContain('<img src=x onerror=');
    // Search results show it as text too.
    await page.getByTestId('tab-search').click();
    await page.getByTestId('search-query').fill('bold tea note');
    await page.getByTestId('search-run').click();
    await page.getByTestId('hit').first().waitFor();
    expect(await page.getByTestId('hit-text').allTextContents()).toContain(ATTACK_TEXT);
    expect(await page.locator('main img, main script, main b').count()).toBe(0);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(browser.pageErrors).toEqual([]);
    await page.close();
  });

  it('explains a search: bars for every score, paths and channels, the plan, timings and the threshold cut', async () => {
    const page = await signIn(server.keys.a);
    await page.getByTestId('scope-user').fill('alice');
    await page.getByTestId('scope-apply').click();
    await page.getByTestId('tab-search').click();
    await page.getByTestId('search-query').fill('vegetarian dinner food');
    await page.getByTestId('search-reranker').selectOption('cosine-local');
    await page.getByTestId('search-fast-graph').check();
    await page.getByTestId('search-threshold').fill('0.3');
    await page.getByTestId('search-run').click();
    await page.getByTestId('outcome').waitFor();

    // The page shows what /v1/search returns, in the same order, split at the same threshold:
    // the kept hits are exactly those of a search with threshold 0.3, the cut ones the rest.
    type Hits = { hits: Array<{ memory: { text: string }; relevance: number }> };
    const body = {
      query: 'vegetarian dinner food',
      scope: { user: 'alice' },
      reranker: 'cosine-local',
      fastGraph: true,
      topK: 10,
    };
    const kept = (await server.api<Hits>('POST', '/v1/search', server.keys.a, { ...body, threshold: 0.3 })).json.hits;
    const all = (await server.api<Hits>('POST', '/v1/search', server.keys.a, { ...body, threshold: -1 })).json.hits;
    const json = { hits: kept, cut: all.filter((h) => h.relevance < 0.3) };
    // Every search records use of its hits (usage), so two searches differ only there.
    const withoutUsage = (hits: Hits['hits']) => hits.map((h) => ({ ...h, memory: { ...h.memory, usage: undefined } }));
    expect(withoutUsage(all.slice(0, kept.length))).toEqual(withoutUsage(kept));
    expect(json.hits.length).toBeGreaterThan(0);
    expect(json.cut.length).toBeGreaterThan(0);
    expect(await page.getByTestId('hits').getByTestId('hit-text').allTextContents()).toEqual(
      json.hits.map((h) => h.memory.text),
    );
    expect(await page.getByTestId('cut').getByTestId('hit-text').allTextContents()).toEqual(
      json.cut.map((h) => h.memory.text),
    );
    expect(await page.getByTestId('cut-title').textContent()).toBe(`Cut by the threshold (0.300): ${json.cut.length}`);

    const top = page.getByTestId('hit').first();
    const names = await top
      .getByTestId('score-bar')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-score')));
    expect(names).toEqual(
      expect.arrayContaining(['cosine', 'BM25', 'graph', 'fused', 'rerank (cosine-local)', 'relevance']),
    );
    const relevanceWidth = await top
      .locator('[data-score="relevance"] .bar-fill')
      .evaluate((n) => (n as unknown as { style: { width: string } }).style.width);
    expect(Number.parseFloat(relevanceWidth)).toBeCloseTo(Math.min(1, json.hits[0]!.relevance) * 100, 0);
    expect(await top.getByTestId('hit-path').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringMatching(/^path /)]),
    );
    expect((await top.getByTestId('hit-channel').allTextContents()).some((c) => c.startsWith('graph'))).toBe(true);

    const plan = (await page.getByTestId('plan').textContent()) ?? '';
    expect(plan).toContain('mode');
    expect(plan).toContain('graph tags');
    expect(plan).toContain('cosine-local');
    const stages = await page
      .getByTestId('timings')
      .locator('.bar-row')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-stage')));
    expect(stages).toEqual(expect.arrayContaining(['plan', 'embed', 'paths', 'post', 'total']));
    expect(await page.getByTestId('detail-timings').textContent()).toContain('channels: dense');
    await screenshot(page, 'search-plan');
    await page
      .getByTestId('hits')
      .evaluate((n) => (n as unknown as { scrollIntoView(o: unknown): void }).scrollIntoView({ block: 'start' }));
    await screenshot(page, 'search-hits');
    await page.close();
  });

  it('explains the core recall too, and says when a mode fell back', async () => {
    const page = await signIn(server.keys.a);
    await page.getByTestId('scope-user').fill('alice');
    await page.getByTestId('scope-apply').click();
    await page.getByTestId('tab-search').click();
    await page.getByTestId('search-query').fill('peanut allergy');
    await page.getByTestId('search-engine').selectOption('recall');
    await page.getByTestId('search-profile').selectOption('seed');
    await page.getByTestId('search-types').getByLabel('User', { exact: true }).check();
    await page.getByTestId('search-run').click();
    await page.getByTestId('outcome').waitFor();
    const { json } = await server.api<{
      hits: Array<{ memory: { text: string; type: string } }>;
      cut: unknown[];
      poolSize: number;
    }>('POST', '/v1/recall', server.keys.a, {
      query: 'peanut allergy',
      scope: { user: 'alice' },
      profile: 'seed',
      types: ['UserMemory'],
      limit: 10,
    });
    expect(json.hits.length).toBeGreaterThan(0);
    expect(json.hits.every((h) => h.memory.type === 'UserMemory')).toBe(true);
    expect(await page.getByTestId('hits').getByTestId('hit-text').allTextContents()).toEqual(
      json.hits.map((h) => h.memory.text),
    );
    expect(await page.getByTestId('cut-title').textContent()).toBe(`Cut by the threshold (0.100): ${json.cut.length}`);
    const top = page.getByTestId('hit').first();
    expect(
      await top.getByTestId('score-bar').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-score'))),
    ).toEqual(['cosine', 'BM25', 'fused']);
    expect(await top.locator('.notes').textContent()).toMatch(/dense rank \d+/);
    expect(await page.getByTestId('plan').textContent()).toContain(`dense candidate pool${json.poolSize}`);

    await page.getByTestId('search-engine').selectOption('search');
    await page.getByTestId('search-mode').selectOption('fine');
    await page.getByTestId('search-run').click();
    await expect.poll(() => page.getByTestId('outcome').locator('h3').textContent()).toContain('search · fine');
    expect(await page.getByTestId('plan').textContent()).toContain('fine → planned in fast mode (no LLM configured)');
    expect(await page.getByTestId('degraded').textContent()).toContain('plan: no LLM configured');
    await page.close();
  });

  it('shows a pasted provider request as it would go out, with the injected block marked', async () => {
    const page = await signIn(server.keys.a);
    await page.getByTestId('scope-user').fill('alice');
    await page.getByTestId('scope-apply').click();
    await page.getByTestId('tab-search').click();
    await page.getByTestId('search-kind').selectOption('request');
    await page.getByTestId('search-provider').selectOption('anthropic-messages');
    await page.getByTestId('search-request').fill(
      JSON.stringify(
        {
          model: 'claude-sonnet-4-5',
          max_tokens: 512,
          system: 'Be brief.',
          messages: [{ role: 'user', content: 'Any peanut allergy I should know about?' }],
        },
        null,
        2,
      ),
    );
    await page.getByTestId('search-run').click();
    const marked = page.getByTestId('injected-block');
    await marked.waitFor();
    const block = (await marked.textContent()) ?? '';
    expect(block).toContain('Alice is allergic to peanuts');
    const outgoing = (await page.getByTestId('outgoing-request').textContent()) ?? '';
    const request = JSON.parse(outgoing) as {
      system: Array<{ type: string; text: string }> | string;
      messages: unknown[];
    };
    expect(request.messages).toEqual([{ role: 'user', content: 'Any peanut allergy I should know about?' }]);
    expect(JSON.stringify(request.system)).toContain(block);
    expect(await page.getByTestId('outgoing').textContent()).toContain(
      'Query extracted from the last user message: Any peanut allergy I should know about?',
    );
    await page.getByTestId('hit').first().waitFor();
    await page
      .getByTestId('outgoing')
      .evaluate((n) => (n as unknown as { scrollIntoView(o: unknown): void }).scrollIntoView({ block: 'start' }));
    await screenshot(page, 'search-provider-request');
    await page.close();
  });

  it('compares two settings side by side and marks what moved', async () => {
    const page = await signIn(server.keys.a);
    await page.getByTestId('scope-user').fill('alice');
    await page.getByTestId('scope-apply').click();
    await page.getByTestId('tab-compare').click();
    const query = 'quick vegetarian dinner recipes';
    await page.getByTestId('compare-query').fill(query);
    for (const side of ['a', 'b'] as const) {
      await page.getByTestId(`compare-${side}-engine`).selectOption('search');
      await page.getByTestId(`compare-${side}-limit`).fill('6');
      await page.getByTestId(`compare-${side}-threshold`).fill('0');
    }
    await page.getByTestId('compare-a-reranker').selectOption('noop');
    await page.getByTestId('compare-b-reranker').selectOption('cosine-local');
    await page.getByTestId('compare-run').click();
    await page.getByTestId('compare-summary').waitFor();

    const search = (reranker: string) =>
      server.api<{ hits: Array<{ memory: { id: string } }> }>('POST', '/v1/search', server.keys.a, {
        query,
        scope: { user: 'alice' },
        reranker,
        topK: 6,
        threshold: 0,
      });
    const a = (await search('noop')).json.hits.map((h) => h.memory.id);
    const b = (await search('cosine-local')).json.hits.map((h) => h.memory.id);
    const idsOf = (side: string) =>
      page.getByTestId(`compare-${side}-item`).evaluateAll((items) => items.map((i) => i.getAttribute('data-id')));
    expect(await idsOf('a')).toEqual(a);
    expect(await idsOf('b')).toEqual(b);
    const expected = b.map((id, i) => {
      const before = a.indexOf(id);
      return before < 0 ? 'new' : before === i ? '=' : before > i ? `▲${before - i}` : `▼${i - before}`;
    });
    expect(expected.some((m) => m.startsWith('▲') || m.startsWith('▼'))).toBe(true);
    expect(await page.getByTestId('compare-b').getByTestId('movement').allTextContents()).toEqual(expected);
    const moved = expected.filter((m) => m.startsWith('▲') || m.startsWith('▼')).length;
    const dropped = a.filter((id) => !b.includes(id)).length;
    expect(await page.getByTestId('compare-summary').textContent()).toBe(
      `${moved} moved, ${expected.filter((m) => m === 'new').length} new in B, ${dropped} dropped from A`,
    );
    expect(await page.getByTestId('compare-a').getByTestId('movement').count()).toBe(dropped);
    await screenshot(page, 'compare');

    // The classic comparison: the reference recall (seed) against Engram's default profile.
    await page.getByTestId('compare-a-engine').selectOption('recall');
    await page.getByTestId('compare-a-profile').selectOption('seed');
    await page.getByTestId('compare-b-engine').selectOption('recall');
    await page.getByTestId('compare-b-profile').selectOption('engram');
    await page.getByTestId('compare-run').click();
    await expect.poll(() => page.getByTestId('compare-a').locator('h3').textContent()).toBe('A: recall · seed');
    expect(await page.getByTestId('compare-b').locator('h3').textContent()).toBe('B: recall · engram');
    const seed = await server.api<{ hits: Array<{ memory: { id: string } }> }>('POST', '/v1/recall', server.keys.a, {
      query,
      scope: { user: 'alice' },
      profile: 'seed',
      limit: 6,
      threshold: 0,
    });
    expect(await idsOf('a')).toEqual(seed.json.hits.map((h) => h.memory.id));
    await page.close();
  });

  it('archives and deletes with confirmation; cancel keeps the memory', async () => {
    const page = await signIn(server.keys.a);
    await page.getByTestId('scope-user').fill('alice');
    await page.getByTestId('scope-apply').click();
    const row = page.getByTestId('memory-row').filter({ hasText: 'plays the cello' });
    await row.click();
    const id = (await page.getByTestId('memory-detail').getAttribute('data-id')) as string;
    await page.getByTestId('delete').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await screenshot(page, 'delete-confirm');
    await page.getByTestId('confirm-no').click();
    expect((await server.api('GET', `/v1/memories/${id}`, server.keys.a)).status).toBe(200);
    await page.getByTestId('delete').click();
    await page.getByTestId('confirm-yes').click();
    await expect.poll(() => page.getByTestId('browse-status').textContent()).toBe(`Memory ${id} deleted.`);
    expect(await page.getByTestId('memory-row').filter({ hasText: 'plays the cello' }).count()).toBe(0);
    expect((await server.api('GET', `/v1/memories/${id}`, server.keys.a)).status).toBe(404);

    await page.getByTestId('memory-row').filter({ hasText: 'oat milk' }).click();
    const archivedId = (await page.getByTestId('memory-detail').getAttribute('data-id')) as string;
    await page.getByTestId('archive').click();
    await page.getByTestId('confirm-yes').click();
    await expect.poll(() => page.getByTestId('browse-status').textContent()).toBe(`Memory ${archivedId} archived.`);
    expect(await page.getByTestId('memory-row').filter({ hasText: 'oat milk' }).count()).toBe(0);
    const got = await server.api<{ memory: { status: string } }>('GET', `/v1/memories/${archivedId}`, server.keys.a);
    expect(got.json.memory.status).toBe('archived');
    await page.getByTestId('filter-status').selectOption('archived');
    await expect.poll(() => rowTexts(page)).toEqual(['Alice drinks oat milk in her coffee']);
    await page.close();
  });

  it("keeps tenants apart: B's key never shows A's memories and A's never shows B's", async () => {
    const pageB = await signIn(server.keys.b);
    expect(await pageB.getByTestId('tenant').textContent()).toBe('tenant beta');
    await expect.poll(async () => (await rowTexts(pageB)).length).toBe(2);
    const textsB = await rowTexts(pageB);
    expect(textsB).toContain(TENANT_B_SECRET);
    expect(textsB.some((t) => t.includes('Alice') || t.includes('Bob'))).toBe(false);
    await pageB.getByTestId('tab-search').click();
    await pageB.getByTestId('search-query').fill('Alice peanuts vegetarian dinner');
    await pageB.getByTestId('search-run').click();
    await pageB.getByTestId('outcome').waitFor();
    const hitsB = await pageB.getByTestId('hit-text').allTextContents();
    expect(hitsB.length).toBeGreaterThan(0);
    expect(hitsB.every((t) => t === TENANT_B_SECRET || t.startsWith('Carol'))).toBe(true);
    // Asking for tenant A by name is refused by the API, not just hidden by the page.
    const forged = await server.api<{ error: { code: string } }>('GET', '/v1/memories?tenant=acme', server.keys.b);
    expect(forged.json.error.code).toBe('FORBIDDEN');
    await pageB.close();

    const pageA = await signIn(server.keys.a);
    await expect.poll(async () => (await rowTexts(pageA)).length).toBeGreaterThan(10);
    const textsA = await rowTexts(pageA);
    expect(textsA.some((t) => t.startsWith('Bob'))).toBe(true);
    expect(textsA).not.toContain(TENANT_B_SECRET);
    await pageA.getByTestId('tab-search').click();
    await pageA.getByTestId('search-query').fill('Zephyr launch code tenant beta');
    await pageA.getByTestId('search-run').click();
    await pageA.getByTestId('outcome').waitFor();
    const hitsA = await pageA.getByTestId('hit-text').allTextContents();
    expect(hitsA.length).toBeGreaterThan(0);
    expect(hitsA.some((t) => t.includes('Zephyr') || t.startsWith('Carol'))).toBe(false);
    await pageA.close();
  });

  it('a collection-limited key sees only its collection, in browse and search', async () => {
    const page = await signIn(server.keys.aTeam);
    expect(await page.getByTestId('scope-collection').inputValue()).toBe('team');
    await expect.poll(() => rowTexts(page)).toEqual([TEAM_TEXT]);
    await page.getByTestId('tab-search').click();
    await page.getByTestId('search-query').fill('Dana dinner note');
    await page.getByTestId('search-run').click();
    await page.getByTestId('outcome').waitFor();
    const texts = await page.getByTestId('hit-text').allTextContents();
    expect(texts).toContain(TEAM_TEXT);
    expect(texts).not.toContain(DANA_OTHER_TEXT);
    // Emptying the collection does not widen the view (the API keeps the key's only collection),
    // and naming another one is refused by the API.
    await page.getByTestId('tab-browse').click();
    await page.getByTestId('scope-collection').fill('');
    await page.getByTestId('scope-apply').click();
    await expect.poll(() => rowTexts(page)).toEqual([TEAM_TEXT]);
    await page.getByTestId('scope-collection').fill('other');
    await page.getByTestId('scope-apply').click();
    await expect.poll(() => page.getByTestId('browse-status').textContent()).toContain('FORBIDDEN');
    expect(await page.textContent('main')).not.toContain(DANA_OTHER_TEXT);
    await page.close();
  });

  it('a read-only key can look but not delete; forgetting the key hides everything', async () => {
    const page = await signIn(server.keys.aReadOnly);
    await page.getByTestId('memory-row').first().click();
    expect(await page.getByTestId('delete').isDisabled()).toBe(true);
    expect(await page.getByTestId('archive').isDisabled()).toBe(true);
    await page.reload();
    await page.getByTestId('tenant').waitFor();
    await page.getByTestId('forget-key').click();
    await page.getByTestId('key-gate').waitFor();
    expect(await page.getByTestId('memory-row').count()).toBe(0);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await page.close();
  });

  it('a key revoked while the page is open sends the page back to the gate', async () => {
    const key = server.mintKey('acme');
    const page = await signIn(key);
    await expect.poll(async () => (await rowTexts(page)).length).toBeGreaterThan(0);
    server.revoke(key);
    await page.getByTestId('browse-apply').click();
    await page.getByTestId('key-gate').waitFor();
    expect(await page.getByTestId('key-status').textContent()).toContain('no longer accepts this key');
    expect(await page.getByTestId('memory-row').count()).toBe(0);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    await page.close();
  });

  it('made no request off the server (no CDN, no fonts) and threw no page error', () => {
    expect(browser.offsite).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});

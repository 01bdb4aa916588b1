import { errorText, type AppContext } from './app-context.js';
import { el, field, formatScore, truncate } from './dom.js';
import { engineForm } from './engine-form.js';
import { runEngine, type Outcome } from './engine-run.js';

/** How a memory moved from list A to list B. */
export type Movement = { kind: 'same' } | { kind: 'up' | 'down'; by: number } | { kind: 'new' } | { kind: 'dropped' };

/** The movement of every memory: ranks in B against ranks in A, and A's memories missing from B. */
export function movements(a: string[], b: string[]): { inB: Map<string, Movement>; dropped: Set<string> } {
  const rankA = new Map(a.map((id, i) => [id, i]));
  const inB = new Map<string, Movement>();
  b.forEach((id, i) => {
    const before = rankA.get(id);
    if (before === undefined) inB.set(id, { kind: 'new' });
    else if (before === i) inB.set(id, { kind: 'same' });
    else inB.set(id, { kind: before > i ? 'up' : 'down', by: Math.abs(before - i) });
  });
  const inBSet = new Set(b);
  return { inB, dropped: new Set(a.filter((id) => !inBSet.has(id))) };
}

function movementText(m: Movement): string {
  switch (m.kind) {
    case 'same':
      return '=';
    case 'up':
      return `▲${m.by}`;
    case 'down':
      return `▼${m.by}`;
    case 'new':
      return 'new';
    case 'dropped':
      return 'dropped';
  }
}

function column(outcome: Outcome, side: 'a' | 'b', moves: ReturnType<typeof movements>): HTMLElement {
  const items = outcome.hits.map((hit, i) => {
    const id = hit.memory.id;
    const move: Movement | undefined =
      side === 'b' ? moves.inB.get(id) : moves.dropped.has(id) ? { kind: 'dropped' } : undefined;
    return el(
      'li',
      {
        class: `compare-item ${move ? `move-${move.kind}` : ''}`,
        testid: `compare-${side}-item`,
        attrs: { 'data-id': id },
      },
      el('span', { class: 'rank' }, `#${i + 1}`),
      el('span', { class: 'hit-text' }, truncate(hit.memory.text, 200)),
      el('span', { class: 'hit-score' }, formatScore(hit.score)),
      move ? el('span', { class: 'move', testid: 'movement' }, movementText(move)) : null,
    );
  });
  return el(
    'div',
    { class: 'compare-column', testid: `compare-${side}` },
    el('h3', {}, `${side.toUpperCase()}: ${outcome.label}`),
    el('ol', { class: 'compare-list' }, ...items),
  );
}

/** The same query under two settings, side by side, with what moved. */
export function compareView(ctx: AppContext): HTMLElement {
  const query = el('input', {
    class: 'wide',
    testid: 'compare-query',
    attrs: { type: 'search', placeholder: 'Query to compare' },
  });
  const formA = engineForm('compare-a-', ctx.who, { engine: 'recall', profile: 'seed' });
  const formB = engineForm('compare-b-', ctx.who, { engine: 'recall', profile: 'engram' });
  const status = el('p', { class: 'status', testid: 'compare-status', attrs: { role: 'status' } });
  const results = el('div', { testid: 'compare-results' });
  const run = el('button', { testid: 'compare-run', attrs: { type: 'submit' } }, 'Compare');

  async function execute(): Promise<void> {
    results.replaceChildren();
    if (query.value.trim() === '') {
      status.textContent = 'Type a query first.';
      return;
    }
    status.textContent = 'Running both…';
    run.disabled = true;
    try {
      const scope = ctx.scope();
      const [a, b] = await Promise.all([
        runEngine(ctx.api, scope, query.value, formA.read()),
        runEngine(ctx.api, scope, query.value, formB.read()),
      ]);
      const moves = movements(
        a.hits.map((h) => h.memory.id),
        b.hits.map((h) => h.memory.id),
      );
      const moved = [...moves.inB.values()].filter((m) => m.kind === 'up' || m.kind === 'down').length;
      const added = [...moves.inB.values()].filter((m) => m.kind === 'new').length;
      const summary = `${moved} moved, ${added} new in B, ${moves.dropped.size} dropped from A`;
      results.append(
        el('p', { class: 'summary', testid: 'compare-summary' }, summary),
        el('div', { class: 'compare' }, column(a, 'a', moves), column(b, 'b', moves)),
      );
      status.textContent = '';
    } catch (error: unknown) {
      status.textContent = `Compare failed — ${errorText(error)}`;
    } finally {
      run.disabled = false;
    }
  }

  const form = el(
    'form',
    {
      class: 'panel',
      testid: 'compare-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          void execute();
        },
      },
    },
    field('Query', query),
    el(
      'div',
      { class: 'compare' },
      el('div', {}, el('h4', {}, 'Setting A'), formA.node),
      el('div', {}, el('h4', {}, 'Setting B'), formB.node),
    ),
    el('div', { class: 'row' }, run),
  );
  return el('div', { class: 'view', testid: 'compare-view' }, form, status, results);
}

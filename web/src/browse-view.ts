import { errorText, type AppContext } from './app-context.js';
import { el, field, formatTime, replaceChildren, select, truncate } from './dom.js';
import { memoryDetail } from './memory-detail.js';
import { validityLabel } from './memory-timeline.js';
import { MEMORY_TYPES, type Memory, type Page } from './wire-types.js';

/** Browse a scope's memories: filter, page, open one, archive or delete it. */
export function browseView(ctx: AppContext): HTMLElement {
  const type = select([['', 'all types'], ...MEMORY_TYPES.map((t): [string, string] => [t, t])], '', 'filter-type');
  const status = select(
    [
      ['activated', 'active'],
      ['archived', 'archived'],
      ['activated,archived', 'active + archived'],
    ],
    'activated',
    'filter-status',
  );
  const tag = el('input', { testid: 'filter-tag', attrs: { type: 'text', placeholder: 'tag' } });
  const key = el('input', { testid: 'filter-key', attrs: { type: 'text', placeholder: 'key' } });
  const contains = el('input', {
    testid: 'filter-text',
    attrs: { type: 'search', placeholder: 'text on this page contains…' },
  });
  const order = select(
    [
      ['updatedAt', 'updated'],
      ['createdAt', 'created'],
      ['statedAt', 'stated'],
    ],
    'updatedAt',
    'filter-order',
  );
  const size = select(
    [
      ['10', '10'],
      ['25', '25'],
      ['50', '50'],
    ],
    '25',
    'page-size',
  );
  const prev = el('button', { testid: 'page-prev', attrs: { type: 'button', disabled: true } }, '← Previous');
  const next = el('button', { testid: 'page-next', attrs: { type: 'button', disabled: true } }, 'Next →');
  const pageInfo = el('span', { class: 'hint', testid: 'page-info' });
  const message = el('p', { class: 'status', testid: 'browse-status', attrs: { role: 'status' } });
  const tbody = el('tbody', { testid: 'memory-rows' });
  const detail = el('div', { testid: 'detail-slot' });

  /** Cursors of the pages before the current one (the first page has no cursor). */
  const cursors: Array<string | undefined> = [];
  let current: string | undefined;
  let items: Memory[] = [];
  let nextCursor: string | null = null;

  function renderRows(): void {
    const needle = contains.value.trim().toLowerCase();
    const shown = needle === '' ? items : items.filter((m) => m.text.toLowerCase().includes(needle));
    replaceChildren(
      tbody,
      ...shown.map((m) =>
        el(
          'tr',
          {
            testid: 'memory-row',
            attrs: { 'data-id': m.id, tabindex: 0 },
            on: { click: () => open(m), keydown: (e) => e.key === 'Enter' && open(m) },
          },
          el(
            'td',
            { class: 'cell-text', testid: 'memory-text' },
            truncate(m.text, 160),
            validityLabel(m)
              ? el('span', { class: 'badge superseded', testid: 'row-superseded' }, validityLabel(m))
              : null,
          ),
          el('td', {}, m.type.replace(/Memory$/, '')),
          el('td', {}, m.tags.join(', ')),
          el('td', {}, m.key ?? ''),
          el('td', {}, m.level ?? ''),
          el('td', {}, formatTime(m.statedAt)),
          el('td', {}, formatTime(m.updatedAt)),
          el('td', { class: 'num' }, m.usage.count),
        ),
      ),
    );
    if (shown.length === 0)
      tbody.append(el('tr', {}, el('td', { class: 'empty', attrs: { colspan: 8 } }, 'No memories here.')));
    pageInfo.textContent = `page ${cursors.length + 1} · ${shown.length} shown${needle ? ` of ${items.length}` : ''}`;
    prev.disabled = cursors.length === 0;
    next.disabled = nextCursor === null;
  }

  function open(memory: Memory): void {
    replaceChildren(
      detail,
      memoryDetail(ctx, memory, (text) => void load(current, text)),
    );
    detail.scrollIntoView({ block: 'nearest' });
  }

  async function load(cursor: string | undefined, notice?: string): Promise<void> {
    message.textContent = 'Loading…';
    try {
      const page = await ctx.api.request<Page>('GET', '/memories', {
        query: {
          ...ctx.scope(),
          types: type.value || undefined,
          statuses: status.value,
          tags: tag.value.trim() || undefined,
          key: key.value.trim() || undefined,
          order: order.value,
          direction: 'desc',
          limit: size.value,
          cursor,
        },
      });
      current = cursor;
      items = page.items;
      nextCursor = page.nextCursor;
      ctx.rememberScopes(items);
      detail.replaceChildren();
      renderRows();
      message.textContent = notice ?? '';
    } catch (error: unknown) {
      items = [];
      nextCursor = null;
      renderRows();
      message.textContent = `Could not list memories — ${errorText(error)}`;
    }
  }

  const reload = () => {
    cursors.length = 0;
    void load(undefined);
  };
  prev.addEventListener('click', () => {
    const back = cursors.pop();
    void load(back);
  });
  next.addEventListener('click', () => {
    if (nextCursor === null) return;
    cursors.push(current);
    void load(nextCursor);
  });
  contains.addEventListener('input', renderRows);
  for (const control of [type, status, order, size]) control.addEventListener('change', reload);

  const form = el(
    'form',
    {
      class: 'panel row',
      testid: 'browse-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          reload();
        },
      },
    },
    field('Type', type),
    field('Status', status),
    field('Tag', tag),
    field('Key', key),
    field('Order', order),
    field('Page size', size),
    el('button', { testid: 'browse-apply', attrs: { type: 'submit' } }, 'Apply'),
    field('Filter', contains),
  );
  const table = el(
    'table',
    { class: 'memories', testid: 'memory-table' },
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        ...['text', 'type', 'tags', 'key', 'level', 'stated', 'updated', 'used'].map((h) => el('th', {}, h)),
      ),
    ),
    tbody,
  );
  const view = el(
    'div',
    { class: 'view', testid: 'browse-view' },
    form,
    message,
    table,
    el('div', { class: 'row pager' }, prev, pageInfo, next),
    detail,
  );
  reload();
  return view;
}

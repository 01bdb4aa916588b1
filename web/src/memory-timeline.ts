import { errorText, type AppContext } from './app-context.js';
import { el, formatTime, replaceChildren } from './dom.js';
import type { HistoryEvent, HistoryPage, Memory, RequestScope } from './wire-types.js';

function causeText(event: HistoryEvent): string {
  const cause = event.cause;
  if (cause.type === 'api') return `API ${cause.operation}`;
  if (cause.type === 'formation') return `formation (decided by ${cause.decidedBy}, ${cause.extractor})`;
  if (cause.type === 're-embed') return `re-embedded with ${cause.model}`;
  if (cause.type === 'import') return `import ${cause.source}`;
  return cause.detail;
}

function day(iso: string | null | undefined): string {
  return iso ? iso.slice(0, 10) : '…';
}

/** One event: when, what kind, the text after it (or before, for a delete), validity and why. */
function eventItem(event: HistoryEvent): HTMLElement {
  const snapshot = event.after ?? event.before;
  const caller = event.caller.id ? `${event.caller.kind} ${event.caller.id}` : event.caller.kind;
  const validity = snapshot
    ? `valid ${day(snapshot.validFrom)} – ${snapshot.validTo ? day(snapshot.validTo) : 'now'}${
        snapshot.supersededBy ? ` · superseded by ${snapshot.supersededBy}` : ''
      }`
    : '';
  return el(
    'li',
    { class: `event event-${event.kind}`, testid: 'timeline-event', attrs: { 'data-kind': event.kind } },
    el(
      'div',
      { class: 'event-head' },
      el('span', { class: `badge kind-${event.kind}` }, event.kind),
      el('span', { class: 'hint' }, formatTime(event.at)),
      snapshot ? el('span', { class: 'hint' }, `v${snapshot.version}`) : null,
    ),
    snapshot ? el('p', { class: 'event-text' }, snapshot.text) : null,
    el('p', { class: 'hit-meta' }, [validity, causeText(event), caller].filter((t) => t !== '').join(' · ')),
    event.sourceTurnIds.length > 0
      ? el('p', { class: 'hit-meta' }, `source turns: ${event.sourceTurnIds.join(', ')}`)
      : null,
  );
}

/**
 * A memory's timeline: every change from the history API, oldest first, with superseded and
 * ended states marked, loaded when the memory's page opens.
 */
export function memoryTimeline(ctx: AppContext, memory: Memory, scope: RequestScope): HTMLElement {
  const list = el('ol', { class: 'timeline', testid: 'timeline' });
  const status = el('p', { class: 'status', testid: 'timeline-status' }, 'Loading history…');
  void (async () => {
    try {
      const page = await ctx.api.request<HistoryPage>('GET', `/memories/${encodeURIComponent(memory.id)}/history`, {
        query: { ...scope, limit: '200' },
      });
      replaceChildren(list, ...page.items.map(eventItem));
      status.textContent =
        page.items.length === 0
          ? 'No recorded changes.'
          : page.nextCursor
            ? `${page.items.length} changes shown (more exist).`
            : '';
    } catch (error: unknown) {
      status.textContent = `Could not load the history — ${errorText(error)}`;
    }
  })();
  return el('div', { class: 'timeline-wrap' }, el('h4', {}, 'Timeline'), status, list);
}

/** `superseded` (replaced by another memory), `ended`, or null for a memory that holds now. */
export function validityLabel(memory: Memory, now = Date.now()): string | null {
  if (memory.supersededBy) return 'superseded';
  if (memory.validTo && Date.parse(memory.validTo) <= now) return 'ended';
  return null;
}

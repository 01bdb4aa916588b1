import { errorText, type AppContext } from './app-context.js';
import { el, formatTime } from './dom.js';
import { memoryTimeline, validityLabel } from './memory-timeline.js';
import type { Memory, RequestScope } from './wire-types.js';

/** The memory's own narrowing (its tenant is the key's). */
function scopeOf(memory: Memory): RequestScope {
  const { user, agent, session, collection } = memory.scope;
  const out: RequestScope = {};
  if (user !== undefined) out.user = user;
  if (agent !== undefined) out.agent = agent;
  if (session !== undefined) out.session = session;
  if (collection !== undefined) out.collection = collection;
  return out;
}

/** Asks for confirmation in a modal dialog; resolves true only when the user confirms. */
export function confirmDialog(message: string, confirmLabel: string): Promise<boolean> {
  return new Promise((resolve) => {
    const confirm = el('button', { class: 'danger', testid: 'confirm-yes', attrs: { value: 'yes' } }, confirmLabel);
    const cancel = el('button', { testid: 'confirm-no', attrs: { value: 'no' } }, 'Cancel');
    const dialog = el(
      'dialog',
      { testid: 'confirm-dialog' },
      el('form', { attrs: { method: 'dialog' } }, el('p', {}, message), el('div', { class: 'row' }, cancel, confirm)),
    );
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'yes');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

function row(label: string, value: string | Node): HTMLElement[] {
  return [el('dt', {}, label), el('dd', {}, value)];
}

/** One memory: every field, its sources and metadata, archive/restore and delete. */
export function memoryDetail(ctx: AppContext, memory: Memory, onChanged: (message: string) => void): HTMLElement {
  const status = el('p', { class: 'status', testid: 'detail-status', attrs: { role: 'status' } });
  const readOnly = ctx.who.access !== 'read-write';
  const archived = memory.status === 'archived';
  const archive = el(
    'button',
    { testid: 'archive', attrs: { type: 'button', disabled: readOnly } },
    archived ? 'Restore' : 'Archive',
  );
  const remove = el(
    'button',
    { class: 'danger', testid: 'delete', attrs: { type: 'button', disabled: readOnly } },
    'Delete…',
  );
  archive.addEventListener('click', () => {
    void (async () => {
      const next = archived ? 'activated' : 'archived';
      if (!(await confirmDialog(`${archived ? 'Restore' : 'Archive'} this memory?`, archived ? 'Restore' : 'Archive')))
        return;
      try {
        await ctx.api.request('PATCH', `/memories/${encodeURIComponent(memory.id)}`, {
          body: { scope: scopeOf(memory), patch: { status: next } },
        });
        onChanged(`Memory ${memory.id} ${archived ? 'restored' : 'archived'}.`);
      } catch (error: unknown) {
        status.textContent = `Failed — ${errorText(error)}`;
      }
    })();
  });
  remove.addEventListener('click', () => {
    void (async () => {
      if (!(await confirmDialog('Delete this memory for good? This cannot be undone.', 'Delete'))) return;
      try {
        const result = await ctx.api.request<{ deleted: boolean }>(
          'DELETE',
          `/memories/${encodeURIComponent(memory.id)}`,
          { query: { ...scopeOf(memory) } },
        );
        onChanged(result.deleted ? `Memory ${memory.id} deleted.` : `Memory ${memory.id} was already gone.`);
      } catch (error: unknown) {
        status.textContent = `Failed — ${errorText(error)}`;
      }
    })();
  });
  const sources = el(
    'ul',
    { class: 'sources', testid: 'detail-sources' },
    ...memory.sources.map((s) =>
      el(
        'li',
        {},
        [s.type, s.role, s.id && `id ${s.id}`, s.title, s.url]
          .filter((v): v is string => typeof v === 'string' && v !== '')
          .join(' · '),
        s.content ? el('pre', { class: 'source-content' }, s.content) : null,
      ),
    ),
  );
  const scope = Object.entries(memory.scope)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return el(
    'section',
    { class: 'detail panel', testid: 'memory-detail', attrs: { 'data-id': memory.id } },
    el('h3', {}, 'Memory'),
    validityLabel(memory)
      ? el('p', { class: 'badge superseded', testid: 'detail-superseded' }, supersededText(memory))
      : null,
    el('p', { class: 'memory-text', testid: 'detail-text' }, memory.text),
    el(
      'dl',
      { class: 'fields' },
      ...row('id', memory.id),
      ...row('type', memory.type),
      ...row('status', memory.status),
      ...row('scope', scope),
      ...row('key', memory.key ?? '—'),
      ...row('tags', memory.tags.join(', ') || '—'),
      ...row('level', memory.level ?? '—'),
      ...row('summary', memory.summary ?? '—'),
      ...row('background', memory.background ?? '—'),
      ...row('stated', formatTime(memory.statedAt)),
      ...row('valid', `${formatTime(memory.validFrom)} – ${memory.validTo ? formatTime(memory.validTo) : 'now'}`),
      ...row('version', String(memory.version)),
      ...row('created', formatTime(memory.createdAt)),
      ...row('updated', formatTime(memory.updatedAt)),
      ...row('used', `${memory.usage.count} times, last ${formatTime(memory.usage.lastUsedAt)}`),
      ...row('embedding', memory.embedding ? `${memory.embedding.model} (${memory.embedding.dim} dims)` : '—'),
    ),
    el('h4', {}, `Sources (${memory.sources.length})`),
    memory.sources.length > 0 ? sources : el('p', { class: 'empty' }, 'No sources.'),
    el('h4', {}, 'Metadata'),
    el('pre', { class: 'metadata', testid: 'detail-metadata' }, JSON.stringify(memory.metadata, null, 2)),
    el('div', { class: 'row' }, archive, remove, readOnly ? el('span', { class: 'hint' }, 'read-only key') : null),
    status,
    memoryTimeline(ctx, memory, scopeOf(memory)),
  );
}

function supersededText(memory: Memory): string {
  const until = memory.validTo ? ` on ${memory.validTo.slice(0, 10)}` : '';
  return memory.supersededBy ? `Superseded${until} by ${memory.supersededBy}` : `No longer valid${until}`;
}

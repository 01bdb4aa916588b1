import './styles.css';
import { ApiClient, ApiError, cleanScope } from './api-client.js';
import { errorText, type AppContext } from './app-context.js';
import { browseView } from './browse-view.js';
import { compareView } from './compare-view.js';
import { el, field, replaceChildren } from './dom.js';
import { clearKey, loadKey, saveKey } from './key-storage.js';
import { searchView } from './search-view.js';
import type { Memory, WhoAmI } from './wire-types.js';

type Tab = 'browse' | 'search' | 'compare';
const TABS: Array<[Tab, string]> = [
  ['browse', 'Browse'],
  ['search', 'Search'],
  ['compare', 'Compare'],
];
const SCOPE_FIELDS = ['user', 'agent', 'session', 'collection'] as const;

const root = document.getElementById('app') as HTMLElement;

/** The key gate: nothing of the tenant is shown until a key is accepted by the API. */
function showGate(message = ''): void {
  const input = el('input', {
    testid: 'key-input',
    attrs: { type: 'password', autocomplete: 'off', placeholder: 'egk_…', required: true },
  });
  const status = el('p', { class: 'status', testid: 'key-status', attrs: { role: 'status' } }, message);
  const form = el(
    'form',
    {
      class: 'panel gate',
      testid: 'key-gate',
      on: {
        submit: (event) => {
          event.preventDefault();
          const key = input.value.trim();
          if (key === '') return;
          status.textContent = 'Checking the key…';
          void start(key, (text) => (status.textContent = text));
        },
      },
    },
    el('h2', {}, 'API key'),
    el(
      'p',
      {},
      'The inspector shows what this key may read, and nothing else. The key stays in this tab (sessionStorage) and is sent only to this server.',
    ),
    field('Key', input),
    el('button', { testid: 'key-submit', attrs: { type: 'submit' } }, 'Open'),
    status,
  );
  replaceChildren(root, el('header', { class: 'top' }, el('h1', {}, 'Engram · memory inspector')), form);
  input.focus();
}

async function start(key: string, onError: (text: string) => void): Promise<void> {
  let opened = false;
  const api = new ApiClient(key, () => {
    if (!opened) return;
    clearKey();
    showGate('The server no longer accepts this key (revoked?). Enter a key.');
  });
  let who: WhoAmI;
  try {
    who = await api.request<WhoAmI>('GET', '/inspector/whoami');
  } catch (error: unknown) {
    clearKey();
    onError(
      error instanceof ApiError && error.status === 401
        ? 'The server does not accept this key.'
        : `Cannot open — ${errorText(error)}`,
    );
    return;
  }
  saveKey(key);
  opened = true;
  showApp(api, who);
}

function showApp(api: ApiClient, who: WhoAmI): void {
  const inputs = Object.fromEntries(
    SCOPE_FIELDS.map((name) => [
      name,
      el('input', { testid: `scope-${name}`, attrs: { type: 'text', list: `choices-${name}`, placeholder: 'any' } }),
    ]),
  ) as Record<(typeof SCOPE_FIELDS)[number], HTMLInputElement>;
  const lists = Object.fromEntries(
    SCOPE_FIELDS.map((name) => [name, el('datalist', { attrs: { id: `choices-${name}` } })]),
  ) as Record<(typeof SCOPE_FIELDS)[number], HTMLDataListElement>;
  const seen = Object.fromEntries(SCOPE_FIELDS.map((name) => [name, new Set<string>()])) as Record<
    (typeof SCOPE_FIELDS)[number],
    Set<string>
  >;
  if (who.collections) for (const c of who.collections) seen.collection.add(c);
  if (who.collections?.length === 1) inputs.collection.value = who.collections[0] as string;

  const ctx: AppContext = {
    api,
    who,
    scope: () =>
      cleanScope({
        user: inputs.user.value,
        agent: inputs.agent.value,
        session: inputs.session.value,
        collection: inputs.collection.value,
      }),
    rememberScopes(memories: Memory[]) {
      for (const memory of memories) {
        for (const name of SCOPE_FIELDS) {
          const value = memory.scope[name];
          if (value === undefined || seen[name].has(value)) continue;
          seen[name].add(value);
          lists[name].append(el('option', { attrs: { value } }));
        }
      }
    },
  };
  for (const name of SCOPE_FIELDS)
    for (const value of seen[name]) lists[name].append(el('option', { attrs: { value } }));

  const main = el('main', { testid: 'main' });
  let tab: Tab = 'browse';
  const tabButtons = TABS.map(([id, label]) =>
    el(
      'button',
      {
        class: 'tab',
        testid: `tab-${id}`,
        attrs: { type: 'button', 'aria-selected': id === tab },
        on: { click: () => show(id) },
      },
      label,
    ),
  );
  function show(next: Tab): void {
    tab = next;
    tabButtons.forEach((b, i) => b.setAttribute('aria-selected', String(TABS[i]?.[0] === next)));
    replaceChildren(main, next === 'browse' ? browseView(ctx) : next === 'search' ? searchView(ctx) : compareView(ctx));
  }
  const scopeForm = el(
    'form',
    {
      class: 'scope row',
      testid: 'scope-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          show(tab);
        },
      },
    },
    el('span', { class: 'tenant', testid: 'tenant' }, `tenant ${who.tenant}`),
    ...SCOPE_FIELDS.map((name) => field(name, inputs[name])),
    ...Object.values(lists),
    el('button', { testid: 'scope-apply', attrs: { type: 'submit' } }, 'Use scope'),
  );
  const forget = el(
    'button',
    {
      testid: 'forget-key',
      attrs: { type: 'button' },
      on: {
        click: () => {
          clearKey();
          showGate('Key forgotten.');
        },
      },
    },
    'Forget key',
  );
  replaceChildren(
    root,
    el(
      'header',
      { class: 'top' },
      el('h1', {}, 'Engram · memory inspector'),
      el(
        'span',
        { class: 'hint' },
        `key ${who.keyId} · ${who.access}${who.collections ? ` · collections ${who.collections.join(', ')}` : ''}`,
      ),
      forget,
    ),
    scopeForm,
    el('nav', { class: 'tabs', attrs: { role: 'tablist' } }, ...tabButtons),
    main,
  );
  show('browse');
}

const stored = loadKey();
if (stored === null) showGate();
else {
  replaceChildren(root, el('p', { class: 'status' }, 'Checking the stored key…'));
  void start(stored, (text) => showGate(text));
}

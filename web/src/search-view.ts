import { errorText, type AppContext } from './app-context.js';
import { el, field, replaceChildren, select } from './dom.js';
import { engineForm } from './engine-form.js';
import { runEngine } from './engine-run.js';
import { outcomeView } from './outcome-view.js';
import { outgoingRequest } from './outgoing-request.js';
import { PROVIDERS, type InjectResponse } from './wire-types.js';

const SAMPLE_REQUEST = JSON.stringify(
  {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'What should I cook for dinner tonight?' },
    ],
  },
  null,
  2,
);

/** Try a search: a query or a pasted provider request, with every score explained. */
export function searchView(ctx: AppContext): HTMLElement {
  const kind = select(
    [
      ['query', 'Query'],
      ['request', 'Provider request'],
    ],
    'query',
    'search-kind',
  );
  const query = el('input', {
    class: 'wide',
    testid: 'search-query',
    attrs: { type: 'search', placeholder: 'What do you want to recall?' },
  });
  const provider = select(
    PROVIDERS.map((p) => [p, p]),
    'openai-chat',
    'search-provider',
  );
  const request = el('textarea', { class: 'wide', testid: 'search-request', attrs: { rows: 10, spellcheck: false } });
  request.value = SAMPLE_REQUEST;
  const queryBox = el('div', {}, field('Query', query));
  const requestBox = el(
    'div',
    {},
    field('Provider', provider),
    field('Request (JSON, as your SDK would send it)', request),
  );
  const form = engineForm('search-', ctx.who, { engine: 'search' });
  const status = el('p', { class: 'status', testid: 'search-status', attrs: { role: 'status' } });
  const results = el('div', { testid: 'search-results' });
  const run = el('button', { testid: 'search-run', attrs: { type: 'submit' } }, 'Search');
  const sync = () => {
    queryBox.hidden = kind.value !== 'query';
    requestBox.hidden = kind.value !== 'request';
  };
  kind.addEventListener('change', sync);
  sync();

  async function execute(): Promise<void> {
    results.replaceChildren();
    status.textContent = 'Searching…';
    run.disabled = true;
    try {
      const scope = ctx.scope();
      const setting = form.read();
      const parts: HTMLElement[] = [];
      let text = query.value;
      if (kind.value === 'request') {
        let body: unknown;
        try {
          body = JSON.parse(request.value) as unknown;
        } catch (error: unknown) {
          throw new Error(`the request is not valid JSON: ${errorText(error)}`);
        }
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw new Error('the request must be a JSON object');
        const injected = await ctx.api.request<InjectResponse>('POST', '/inject', {
          body: {
            provider: provider.value,
            request: body,
            scope,
            limit: setting.limit,
            ...(setting.threshold === null ? {} : { threshold: setting.threshold }),
            ...(setting.types.length > 0 ? { types: setting.types } : {}),
            ...(setting.engine === 'recall' ? { profile: setting.profile } : {}),
          },
        });
        parts.push(
          el(
            'section',
            { class: 'outgoing', testid: 'outgoing' },
            el(
              'h3',
              {},
              injected.injected
                ? 'The request as it would go out (injected block marked)'
                : 'The request would go out unchanged',
            ),
            el(
              'p',
              {},
              injected.query === null
                ? 'No user message found in the request.'
                : `Query extracted from the last user message: ${injected.query}`,
            ),
            outgoingRequest(injected.request, injected.block),
          ),
        );
        if (injected.query === null || injected.query.trim() === '') {
          replaceChildren(results, ...parts);
          status.textContent = 'Nothing to search: the request has no user message.';
          return;
        }
        text = injected.query;
      }
      if (text.trim() === '') throw new Error('type a query first');
      const outcome = await runEngine(ctx.api, scope, text, setting);
      ctx.rememberScopes(outcome.hits.map((h) => h.memory));
      parts.push(outcomeView(outcome));
      replaceChildren(results, ...parts);
      status.textContent = `${outcome.hits.length} hit${outcome.hits.length === 1 ? '' : 's'}, ${outcome.cut.length} cut by the threshold.`;
    } catch (error: unknown) {
      status.textContent = `Search failed — ${errorText(error)}`;
    } finally {
      run.disabled = false;
    }
  }

  const formNode = el(
    'form',
    {
      class: 'panel',
      testid: 'search-form',
      on: {
        submit: (event) => {
          event.preventDefault();
          void execute();
        },
      },
    },
    el('div', { class: 'row' }, field('Search with', kind)),
    queryBox,
    requestBox,
    form.node,
    el('div', { class: 'row' }, run),
  );
  return el('div', { class: 'view', testid: 'search-view' }, formNode, status, results);
}

import { el, field, select } from './dom.js';
import type { EngineSetting } from './engine-run.js';
import { MEMORY_TYPES, type MemoryType } from './wire-types.js';

/** Controls that produce an {@link EngineSetting}. */
export interface EngineForm {
  node: HTMLElement;
  read(): EngineSetting;
}

/** A checkbox per memory type; none checked = all types. */
export function typePicker(testid: string): { node: HTMLElement; read(): MemoryType[] } {
  const boxes = MEMORY_TYPES.map((type) => {
    const box = el('input', { attrs: { type: 'checkbox', value: type } });
    return { type, box, label: el('label', { class: 'check' }, box, type.replace(/Memory$/, '')) };
  });
  return {
    node: el(
      'fieldset',
      { class: 'types', testid },
      el('legend', {}, 'Types (none = all)'),
      ...boxes.map((b) => b.label),
    ),
    read: () => boxes.filter((b) => b.box.checked).map((b) => b.type),
  };
}

/**
 * Engine (searcher or core recall), mode, reranker, profile, types, limit and threshold.
 * `prefix` makes the test ids unique when two forms share a page (compare).
 */
export function engineForm(
  prefix: string,
  who: { search: boolean; rerankers: string[] },
  initial: { engine: 'search' | 'recall'; profile?: 'engram' | 'seed'; reranker?: string },
): EngineForm {
  const searchAvailable = who.search;
  const rerankers = who.rerankers;
  const engine = select(
    [
      ['search', 'searcher'],
      ['recall', 'core recall'],
    ],
    searchAvailable ? initial.engine : 'recall',
    `${prefix}engine`,
  );
  const searchOption = engine.querySelector('option[value="search"]');
  if (!searchAvailable && searchOption instanceof HTMLOptionElement) {
    searchOption.disabled = true;
    searchOption.textContent = 'searcher (not on this server)';
  }
  const mode = select(
    [
      ['fast', 'fast'],
      ['fine', 'fine (LLM plan)'],
      ['deep', 'deep'],
    ],
    'fast',
    `${prefix}mode`,
  );
  const names = rerankers.length > 0 ? rerankers : ['noop'];
  const reranker = select(
    names.map((n) => [n, n]),
    initial.reranker && names.includes(initial.reranker)
      ? initial.reranker
      : names.includes('noop')
        ? 'noop'
        : (names[0] as string),
    `${prefix}reranker`,
  );
  const profile = select(
    [
      ['engram', 'engram'],
      ['seed', 'seed (reference)'],
    ],
    initial.profile ?? 'engram',
    `${prefix}profile`,
  );
  const limit = el('input', { testid: `${prefix}limit`, attrs: { type: 'number', min: 1, max: 100, value: 10 } });
  const threshold = el('input', {
    testid: `${prefix}threshold`,
    attrs: { type: 'number', step: '0.01', min: -1, max: 1, placeholder: 'default' },
  });
  const types = typePicker(`${prefix}types`);
  const graph = el('input', { testid: `${prefix}fast-graph`, attrs: { type: 'checkbox' } });
  const searchOnly = el(
    'span',
    { class: 'inline' },
    field('Mode', mode),
    field('Reranker', reranker),
    el(
      'label',
      { class: 'check', attrs: { title: 'Fast mode: use the query words as graph keys and tags' } },
      graph,
      'graph from query',
    ),
  );
  const recallOnly = el('span', { class: 'inline' }, field('Profile', profile));
  const sync = () => {
    searchOnly.hidden = engine.value !== 'search';
    recallOnly.hidden = engine.value !== 'recall';
  };
  engine.addEventListener('change', sync);
  sync();
  const node = el(
    'div',
    { class: 'engine-form' },
    el(
      'div',
      { class: 'row' },
      field('Engine', engine),
      searchOnly,
      recallOnly,
      field('Limit', limit),
      field('Threshold', threshold),
    ),
    types.node,
  );
  return {
    node,
    read(): EngineSetting {
      const n = Math.min(100, Math.max(1, Math.trunc(Number(limit.value) || 10)));
      const t = threshold.value.trim() === '' ? null : Number(threshold.value);
      const common = { types: types.read(), limit: n, threshold: t !== null && Number.isFinite(t) ? t : null };
      if (engine.value === 'search') {
        return {
          engine: 'search',
          mode: mode.value as 'fast' | 'fine' | 'deep',
          reranker: reranker.value,
          fastGraph: graph.checked,
          ...common,
        };
      }
      return { engine: 'recall', profile: profile.value as 'engram' | 'seed', ...common };
    },
  };
}

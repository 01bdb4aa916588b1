import { el, formatScore, formatTime, truncate } from './dom.js';
import type { Outcome, ShownHit } from './engine-run.js';
import { scoreBars, timingBars } from './score-bars.js';

function badges(hit: ShownHit): HTMLElement {
  return el(
    'div',
    { class: 'badges' },
    ...hit.paths.map((p) => el('span', { class: 'badge path', testid: 'hit-path' }, `path ${p}`)),
    ...hit.channels.map((c) =>
      el(
        'span',
        { class: 'badge channel', testid: 'hit-channel' },
        c.score === undefined ? c.name : `${c.name} ${formatScore(c.score)}`,
      ),
    ),
  );
}

/** A ranked hit with its bars, paths, channels and notes. */
export function hitCard(hit: ShownHit, rank: number, cut: boolean): HTMLElement {
  const m = hit.memory;
  return el(
    'li',
    { class: cut ? 'hit cut' : 'hit', testid: cut ? 'cut-hit' : 'hit', attrs: { 'data-id': m.id } },
    el(
      'div',
      { class: 'hit-head' },
      el('span', { class: 'rank' }, `#${rank}`),
      el('span', { class: 'hit-text', testid: 'hit-text' }, truncate(m.text, 400)),
      el('span', { class: 'hit-score' }, formatScore(hit.score)),
    ),
    el(
      'div',
      { class: 'hit-meta' },
      `${m.type}${m.key ? ` · key ${m.key}` : ''}${m.tags.length ? ` · tags ${m.tags.join(', ')}` : ''} · stated ${formatTime(m.statedAt)}`,
    ),
    badges(hit),
    scoreBars(hit.bars),
    el('div', { class: 'notes' }, hit.notes.join(' · ')),
  );
}

/** Plan, timings, hits and what the threshold cut. */
export function outcomeView(outcome: Outcome): HTMLElement {
  const plan = el('dl', { class: 'plan', testid: 'plan' });
  for (const [label, values] of outcome.plan) {
    plan.append(
      el('dt', {}, label),
      el('dd', {}, values.length === 1 ? values[0] : el('ul', {}, ...values.map((v) => el('li', {}, v)))),
    );
  }
  const hits = el('ol', { class: 'hits', testid: 'hits' }, ...outcome.hits.map((h, i) => hitCard(h, i + 1, false)));
  const cut = el(
    'ol',
    { class: 'hits', testid: 'cut' },
    ...outcome.cut.map((h, i) => hitCard(h, outcome.hits.length + i + 1, true)),
  );
  return el(
    'section',
    { class: 'outcome', testid: 'outcome' },
    el('h3', {}, `${outcome.label} — ${outcome.hits.length} hit${outcome.hits.length === 1 ? '' : 's'}`),
    outcome.degraded.length > 0
      ? el(
          'p',
          { class: 'warning', testid: 'degraded' },
          `Degraded: ${outcome.degraded.map(([k, v]) => `${k}: ${v}`).join('; ')}`,
        )
      : null,
    el(
      'div',
      { class: 'columns' },
      el('div', {}, el('h4', {}, 'Plan'), plan),
      el(
        'div',
        {},
        el('h4', {}, 'Timings'),
        timingBars(outcome.timings, 'timings'),
        outcome.detailTimings.length > 0 ? timingBars(outcome.detailTimings, 'detail-timings') : null,
      ),
    ),
    el('h4', {}, 'Ranked hits'),
    outcome.hits.length === 0 ? el('p', { class: 'empty' }, 'No hit reached the threshold.') : hits,
    el(
      'h4',
      { testid: 'cut-title' },
      `Cut by the threshold (${formatScore(outcome.threshold)}): ${outcome.cut.length}`,
    ),
    cut,
  );
}

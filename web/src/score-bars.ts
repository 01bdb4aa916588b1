import { el, formatScore } from './dom.js';
import type { ScoreBar } from './engine-run.js';

/**
 * One horizontal bar per score. Unit scores fill |value| of the track (negative ones in another
 * colour); a factor (boost) fills (factor − 1), so 1 = empty. Widths go through the CSSOM, which
 * the page's Content-Security-Policy allows (no inline style markup).
 */
export function scoreBars(bars: ScoreBar[]): HTMLElement {
  const table = el('div', { class: 'bars', testid: 'score-bars' });
  for (const bar of bars) {
    const fraction = bar.kind === 'factor' ? bar.value - 1 : bar.value;
    const fill = el('span', { class: fraction < 0 ? 'bar-fill negative' : 'bar-fill' });
    fill.style.width = `${Math.round(Math.min(1, Math.abs(fraction)) * 1000) / 10}%`;
    table.append(
      el(
        'div',
        { class: 'bar-row', testid: 'score-bar', attrs: { 'data-score': bar.name } },
        el('span', { class: 'bar-name' }, bar.name),
        el('span', { class: 'bar-track' }, fill),
        el('span', { class: 'bar-value' }, bar.kind === 'factor' ? `×${bar.value.toFixed(2)}` : formatScore(bar.value)),
      ),
    );
  }
  return table;
}

/** Bars of stage timings in milliseconds, scaled to the largest. */
export function timingBars(timings: Array<[string, number]>, testid: string): HTMLElement {
  const max = Math.max(1e-9, ...timings.map(([, ms]) => ms));
  const table = el('div', { class: 'bars timings', testid });
  for (const [name, ms] of timings) {
    const fill = el('span', { class: 'bar-fill time' });
    fill.style.width = `${Math.round((ms / max) * 1000) / 10}%`;
    table.append(
      el(
        'div',
        { class: 'bar-row', attrs: { 'data-stage': name } },
        el('span', { class: 'bar-name' }, name),
        el('span', { class: 'bar-track' }, fill),
        el('span', { class: 'bar-value' }, `${ms.toFixed(2)} ms`),
      ),
    );
  }
  return table;
}

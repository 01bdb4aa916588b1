import type { ExtractionWindow } from '../../../src/formation/extraction-window.js';
import type { TurnRole } from '../../../src/formation/episode.js';

/** A hand-written conversation as one window: turns get ids `<prefix>1`, `<prefix>2`, … and one time. */
export function conversation(
  turns: Array<[TurnRole, string]>,
  options: { at?: string; prefix?: string; speaker?: string; scope?: ExtractionWindow['scope'] } = {},
): ExtractionWindow {
  const prefix = options.prefix ?? 'ep-';
  return {
    scope: options.scope ?? { tenant: 't', user: 'ana' },
    session: 'session-1',
    turns: turns.map(([role, text], i) => ({
      id: `${prefix}${i + 1}`,
      role,
      speaker: role === 'user' ? (options.speaker ?? 'Ana') : null,
      text,
      occurredAt: options.at ?? '2026-03-04T10:00:00.000Z',
    })),
  };
}

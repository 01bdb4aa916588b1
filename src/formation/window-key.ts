import { createHash } from 'node:crypto';
import type { ExtractorInfo } from './candidate.js';
import { episodeScopeKey } from './episode-merge.js';
import type { ExtractionWindow } from './extraction-window.js';

/**
 * The idempotency key of forming one window with one extractor: SHA-256 over the exact scope,
 * the extractor's name and version and the window's turn ids. A queue keeps one job per key, so
 * a retried or restarted window never forms its facts twice; a new extractor version gets new keys.
 */
export function windowKey(window: ExtractionWindow, extractor: Pick<ExtractorInfo, 'name' | 'version'>): string {
  const material = JSON.stringify([
    episodeScopeKey(window.scope),
    extractor.name,
    extractor.version,
    window.turns.map((t) => t.id),
  ]);
  return `w1:${createHash('sha256').update(material).digest('hex')}`;
}

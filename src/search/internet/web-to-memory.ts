import { createHash } from 'node:crypto';
import type { Memory } from '../../model/memory.js';
import type { Scope } from '../../model/scope.js';
import type { WebResult } from './web-result.js';

const WEB_ID_PREFIX = 'web:';

/** Whether a memory is a web result of this search (never stored: no vector row, no usage). */
export function isWebMemoryId(id: string): boolean {
  return id.startsWith(WEB_ID_PREFIX);
}

function isoOrNull(date: string | null): string | null {
  if (!date) return null;
  const t = Date.parse(date);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * A web result as an OuterMemory item (never stored): text `title: summary`, a `web` source with
 * url / title / summary, metadata `{url, title, date, provider}`, id `web:<sha1(url)>`. It then
 * goes through the same fusion, rerank and dedupe as local memories.
 */
export function webResultToMemory(result: WebResult, scope: Scope, now: string): Memory {
  const id = `${WEB_ID_PREFIX}${createHash('sha1').update(result.url).digest('hex').slice(0, 24)}`;
  const text = [result.title.trim(), result.summary.trim()].filter(Boolean).join(': ') || result.url;
  return {
    id,
    text,
    type: 'OuterMemory',
    key: result.title || null,
    tags: ['internet', result.provider],
    level: 'fact',
    summary: result.summary || null,
    background: null,
    sources: [{ type: 'web', url: result.url, title: result.title, content: result.summary }],
    scope,
    metadata: { url: result.url, title: result.title, date: result.date, provider: result.provider },
    statedAt: isoOrNull(result.date),
    createdAt: now,
    updatedAt: now,
    status: 'activated',
    usage: { count: 0, lastUsedAt: null },
    embedding: null,
    validFrom: isoOrNull(result.date) ?? now,
    validTo: null,
    supersededBy: null,
    version: 1,
  };
}

import type { JsonObject } from '../model/json.js';
import type { MemorySource } from '../model/memory.js';
import { speakerNames } from '../model/speaker-names.js';
import type { MemoryContext } from './memory-store.js';

/** The context of a memory with none: no background, no day stated, no speaker (shared, frozen). */
export const NO_CONTEXT: MemoryContext = Object.freeze({ background: null, statedAt: null, speakers: Object.freeze([]) });

/** The columns a {@link MemoryContext} is made of, as a backend selects them. */
export interface ContextColumns {
  background: string | null;
  stated_at: string | null;
  /** JSON text (SQLite) or the decoded value (PostgreSQL). */
  sources: unknown;
  metadata: unknown;
}

function decoded(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
}

/**
 * A row's {@link MemoryContext}, with the speakers of `speakerNames` (JSON decoded as the row
 * mapping decodes it: unreadable or mistyped values count as none). JSON text is parsed only when
 * it can name a speaker — `[]` cannot, nor metadata without a `"speaker"` key — so rows without
 * context cost no parse. {@link NO_CONTEXT} when the row has none.
 */
export function contextFromColumns(row: ContextColumns): MemoryContext {
  const rawSources = row.sources;
  const rawMetadata = row.metadata;
  const sources = rawSources === '[]' ? null : decoded(rawSources);
  const metadata = typeof rawMetadata === 'string' && !rawMetadata.includes('"speaker"') ? null : decoded(rawMetadata);
  const speakers = speakerNames({
    sources: Array.isArray(sources) ? (sources as MemorySource[]) : [],
    metadata: metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata) ? (metadata as JsonObject) : {},
  });
  if (row.background === null && row.stated_at === null && speakers.length === 0) return NO_CONTEXT;
  return { background: row.background, statedAt: row.stated_at, speakers };
}

import { EngramError } from '../model/errors.js';
import type { HistoryEvent } from '../model/formation/history.js';
import type { EmbeddingInfo } from '../model/memory.js';
import { MEMORY_STATUSES } from '../model/memory-type.js';
import type { MemoryRecord, MemoryStore } from './memory-store.js';
import { assertRecord } from './record-validation.js';

const ALL_STATUSES = [...MEMORY_STATUSES];
/** Ids asked of the store per existence check. */
const ID_CHUNK = 500;

interface Seen {
  model: string;
  dim: number;
  /** The first restored record that brought this model, and its line. */
  id: string;
  line: number;
}

const spaceKey = (e: EmbeddingInfo): string => `${e.model}\u0000${e.dim}`;

/**
 * The first pass of a restore: every record is checked as the store would check it, its vector
 * against its declared model and dimension (finite, not all zeros), each (tenant, user) partition
 * against the one embedding model the facade requires of it (what the file brings and what the
 * store already holds), and ids against duplicates and the rows already stored. A restore writes
 * nothing until {@link RestoreCheck.finish} passed, so a bad file leaves the store as it was.
 */
export class RestoreCheck {
  /** Embedding spaces per tenant, then per user ('' for records without a user). */
  private readonly spaces = new Map<string, Map<string, Map<string, Seen>>>();
  /** Ids per tenant, for duplicates in the file and rows already stored. */
  private readonly ids = new Map<string, Set<string>>();
  /** History event ids per tenant, with the memory each belongs to. */
  private readonly events = new Map<string, Map<string, string>>();

  constructor(private readonly store: MemoryStore) {}

  /** Checks one record of the file (`line` is its 1-based position among the file's lines, for the error). */
  add(record: MemoryRecord, line: number): void {
    try {
      assertRecord(record);
      if (record.vector) assertNotZero(record.vector, record.id);
    } catch (error) {
      if (error instanceof EngramError) throw withLine(error, line);
      throw error;
    }
    const tenant = record.scope.tenant;
    const ids = this.ids.get(tenant) ?? new Set<string>();
    if (ids.has(record.id)) {
      throw new EngramError('CONFLICT', `record ${line}: memory ${record.id} appears twice in tenant ${tenant}`, {
        details: { id: record.id, tenant, line },
      });
    }
    ids.add(record.id);
    this.ids.set(tenant, ids);
    if (record.embedding === null || !record.vector) return;
    const users = this.spaces.get(tenant) ?? new Map<string, Map<string, Seen>>();
    const user = record.scope.user ?? '';
    const spaces = users.get(user) ?? new Map<string, Seen>();
    const key = spaceKey(record.embedding);
    if (!spaces.has(key))
      spaces.set(key, { model: record.embedding.model, dim: record.embedding.dim, id: record.id, line });
    users.set(user, spaces);
    this.spaces.set(tenant, users);
  }

  /** Notes a line's history events: an event id may come once per tenant. */
  addEvents(events: readonly HistoryEvent[], line: number): void {
    for (const event of events) {
      const seen = this.events.get(event.tenant) ?? new Map<string, string>();
      if (seen.has(event.id)) {
        throw new EngramError(
          'CONFLICT',
          `record ${line}: history event ${event.id} appears twice; nothing was restored`,
          {
            details: { id: event.id, tenant: event.tenant, line },
          },
        );
      }
      seen.set(event.id, event.memoryId);
      this.events.set(event.tenant, seen);
    }
  }

  /** Checks what needs the store: one model per partition with what it holds, no id already stored. */
  async finish(): Promise<void> {
    for (const [tenant, users] of this.spaces) {
      for (const [user, spaces] of users) {
        // A partition without a user is the whole tenant for the facade's model check.
        const scope = user === '' ? { tenant } : { tenant, user };
        const fileSpaces = user === '' ? [...users.values()].flatMap((s) => [...s.values()]) : [...spaces.values()];
        await this.checkPartition(scope, fileSpaces);
      }
    }
    for (const [tenant, ids] of this.ids) {
      const list = [...ids];
      for (let i = 0; i < list.length; i += ID_CHUNK) {
        const [found] = await this.store.get(tenant, list.slice(i, i + ID_CHUNK));
        if (found !== undefined) {
          throw new EngramError(
            'CONFLICT',
            `memory ${found.id} already exists in tenant ${tenant}; nothing was restored`,
            {
              details: { id: found.id, tenant },
            },
          );
        }
      }
    }
  }

  private async checkPartition(scope: { tenant: string; user?: string }, fromFile: Seen[]): Promise<void> {
    const stats = await this.store.stats({ scope, statuses: ALL_STATUSES });
    const distinct = new Map<string, { model: string; dim: number; from: string; line?: number }>();
    for (const m of stats.models) distinct.set(spaceKey(m), { model: m.model, dim: m.dim, from: 'the store' });
    for (const s of fromFile) {
      const from = `memory ${s.id} (record ${s.line})`;
      if (!distinct.has(spaceKey(s))) distinct.set(spaceKey(s), { model: s.model, dim: s.dim, from, line: s.line });
    }
    if (distinct.size <= 1) return;
    const models = [...distinct.values()];
    const where = scope.user === undefined ? `tenant ${scope.tenant}` : `tenant ${scope.tenant}, user ${scope.user}`;
    throw new EngramError(
      'MODEL_MISMATCH',
      `restoring would mix embedding models in ${where} (${models.map((m) => `${m.model}/${m.dim} from ${m.from}`).join(', ')}); ` +
        'nothing was restored — re-embed the export or restore it into another tenant',
      { details: { tenant: scope.tenant, user: scope.user ?? null, models, line: lastLine(models) } },
    );
  }
}

/** The line of the last model the file brought: the record that made the partition mixed. */
function lastLine(models: Array<{ line?: number }>): number | undefined {
  const lines = models.flatMap((m) => (m.line === undefined ? [] : [m.line]));
  return lines.length === 0 ? undefined : Math.max(...lines);
}

function assertNotZero(vector: Float32Array, id: string): void {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return;
  throw new EngramError('INVALID_VECTOR', `the vector of ${id} is all zeros`, { details: { id } });
}

/** The same error with the position of the record it came from in its message and details. */
export function withLine(error: EngramError, line: number): EngramError {
  return new EngramError(error.code, `record ${line}: ${error.message}; nothing was restored`, {
    cause: error.cause,
    isRetryable: error.isRetryable,
    details: { ...error.details, line },
  });
}

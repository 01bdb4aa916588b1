import { EngramError } from '../../model/errors.js';
import { EPISODE_ORIGINS, TURN_ROLES, type Episode } from '../../model/formation/episode.js';
import {
  episodeScopeKey,
  planEpisodeWrites,
  type EpisodePlan,
  type EpisodeWrite,
} from '../../model/formation/episode-merge.js';
import type { AppendEpisodesOptions, EpisodeStore, OperationVector } from '../../model/formation/formation-store.js';
import type { HistoryEvent, MemorySnapshot } from '../../model/formation/history.js';
import { turnTextKey } from '../../model/formation/normalize-turn-text.js';
import type { Memory, MemorySource } from '../../model/memory.js';
import type { Scope } from '../../model/scope.js';
import { MEMORY_SELECT, scopeFromColumns, type SelectedMemory } from '../memory-from-columns.js';
import { assertIds, assertRecord, assertScope, assertTenant, assertVector } from '../record-validation.js';
import { appendHistory, recordSnapshot, snapshotOf, writeEvent } from './history-rows.js';
import { assertNewJobs, enqueueJobs, instantArgument, textArgument } from './job-rows.js';
import { andThen, steps, wait, type Maybe, type Steps } from './maybe-async.js';
import type { EpisodeDocument, StoredRecord } from './memory-columns.js';
import type { SqlQueries } from './query-runner.js';
import { inRequestedOrder } from './rows-by-ids.js';
import type { SqlEngine } from './sql-engine.js';

/** An episode row as selected: the memory columns and the episode's own. */
interface EpisodeRow extends SelectedMemory {
  scope_key: string;
  text_key: string;
  mergeable: number | boolean;
  seen_count: number;
  episode: unknown;
}

const EPISODE_SELECT = `${MEMORY_SELECT}, m.scope_key AS scope_key, m.text_key AS text_key, m.mergeable AS mergeable, m.seen_count AS seen_count, m.episode AS episode`;

function episodeFromRow(row: EpisodeRow, json: (raw: unknown) => unknown): Episode {
  const doc = json(row.episode) as EpisodeDocument;
  return {
    id: row.id,
    scope: scopeFromColumns(row),
    role: doc.role,
    speaker: doc.speaker,
    session: doc.session,
    messageId: doc.messageId,
    occurredAt: doc.occurredAt,
    text: row.text,
    textKey: row.text_key,
    count: Number(row.seen_count),
    sources: doc.sources,
    mergeable: Number(row.mergeable) === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** A stored episode and its memory row, as an append reads it. */
interface StoredEpisode {
  episode: Episode;
  memory: Memory;
}

/** Where an episode merges: its exact scope and text key. */
function slotOf(episode: Pick<Episode, 'scope' | 'textKey'>): string {
  return `${episodeScopeKey(episode.scope)}\u0000${episode.textKey}`;
}

function documentOf(episode: Episode): EpisodeDocument {
  return {
    role: episode.role,
    speaker: episode.speaker,
    session: episode.session,
    messageId: episode.messageId,
    occurredAt: episode.occurredAt,
    sources: episode.sources,
  };
}

/** The memory row of a new episode: a `WorkingMemory` said at `occurredAt`, citing its message. */
function episodeRecord(
  episode: Episode,
  write: EpisodeWrite,
  vector: OperationVector | null | undefined,
): StoredRecord {
  const source: MemorySource = { type: 'chat', role: episode.role };
  if (episode.messageId !== null) source.id = episode.messageId;
  return {
    id: episode.id,
    text: episode.text,
    type: 'WorkingMemory',
    key: write.key ?? null,
    tags: [],
    level: null,
    summary: null,
    background: write.background ?? null,
    sources: [source],
    scope: episode.scope,
    // Who said it, where recall reads a speaker's name (the chat source's role is the turn's role).
    metadata: episode.speaker === null ? {} : { speaker: episode.speaker },
    statedAt: episode.occurredAt,
    validFrom: episode.occurredAt,
    createdAt: episode.createdAt,
    updatedAt: episode.updatedAt,
    status: 'activated',
    embedding: vector ? vector.embedding : null,
    vector: vector ? vector.vector : null,
    episode: {
      scopeKey: episodeScopeKey(episode.scope),
      textKey: episode.textKey,
      mergeable: episode.mergeable,
      seenCount: episode.count,
      document: documentOf(episode),
    },
  };
}

function assertWrites(writes: EpisodeWrite[], options: AppendEpisodesOptions): void {
  if (!Array.isArray(writes)) throw new EngramError('INVALID_INPUT', 'writes must be an array');
  writes.forEach((write, i) => {
    const field = `writes[${i}]`;
    if (write === null || typeof write !== 'object' || write.turn === null || typeof write.turn !== 'object')
      throw new EngramError('INVALID_INPUT', `${field} must be { scope, turn, origin }`, { details: { field } });
    assertScope(write.scope);
    if (!EPISODE_ORIGINS.includes(write.origin))
      throw new EngramError('INVALID_INPUT', `${field}.origin must be one of: ${EPISODE_ORIGINS.join(', ')}`);
    if (!TURN_ROLES.includes(write.turn.role))
      throw new EngramError('INVALID_INPUT', `${field}.turn.role must be one of: ${TURN_ROLES.join(', ')}`);
    instantArgument(write.turn.occurredAt, `${field}.turn.occurredAt`);
    if (write.id !== undefined) textArgument(write.id, `${field}.id`);
    if (write.background !== undefined && write.background !== null && typeof write.background !== 'string')
      throw new EngramError('INVALID_INPUT', `${field}.background must be a string or null`, { details: { field } });
    const vector = options.vectors?.[i];
    if (vector) assertVector(vector.vector, vector.embedding, write.id);
  });
  if (options.vectors !== undefined && !Array.isArray(options.vectors))
    throw new EngramError('INVALID_INPUT', 'vectors must be an array aligned with writes');
}

/** The locks an append takes: one per (tenant, exact scope, text key) it may merge into, sorted. */
function mergeKeys(writes: EpisodeWrite[]): string[] {
  const keys = writes.map((w) => JSON.stringify([w.scope.tenant, episodeScopeKey(w.scope), turnTextKey(w.turn.text)]));
  return [...new Set(keys)].sort();
}

/**
 * The rows an append inserts (each new row in the final state of all its plans: a text repeated
 * in the batch merges into the row the batch creates) and one history event per insert
 * (`created`) or merge (`confirmed`); replays record nothing.
 */
function rowsOf(
  plans: EpisodePlan[],
  writes: EpisodeWrite[],
  stored: Map<string, StoredEpisode>,
  options: AppendEpisodesOptions,
  newId: () => string,
): { inserted: Map<string, StoredRecord>; events: HistoryEvent[] } {
  const inserted = new Map<string, StoredRecord>();
  const events: HistoryEvent[] = [];
  const context = { cause: options.cause ?? { type: 'system' as const, detail: 'episodes' }, caller: options.caller };
  plans.forEach((plan, i) => {
    if (plan.action === 'unchanged') return;
    const { id } = plan.episode;
    const prior = inserted.get(id);
    let snapshot: MemorySnapshot;
    if (plan.action === 'insert' || prior !== undefined) {
      const record = episodeRecord(plan.episode, writes[i] as EpisodeWrite, options.vectors?.[i]);
      if (prior !== undefined)
        Object.assign(record, { key: prior.key, vector: prior.vector, embedding: prior.embedding });
      assertRecord(record);
      inserted.set(id, record);
      snapshot = recordSnapshot(record);
    } else {
      snapshot = snapshotOf(stored.get(slotOf(plan.episode))?.memory as Memory);
    }
    const insert = plan.action === 'insert';
    const memory = { tenant: plan.episode.scope.tenant, id };
    const snapshots = { before: insert ? null : snapshot, after: snapshot };
    events.push(
      writeEvent(insert ? 'created' : 'confirmed', memory, snapshots, context, 'episodes', options.at, newId),
    );
  });
  return { inserted, events };
}

function isConflict(error: unknown): boolean {
  return error instanceof EngramError && error.code === 'CONFLICT';
}

/**
 * Runs an append again when it lost a race on the unique text index. Under read committed the
 * advisory locks already serialise appends of one text; under repeatable read or serializable
 * the second one's snapshot may predate the first one's commit, and a fresh transaction sees it.
 */
function againOnConflict<T>(attempt: () => Maybe<T>, retries: number): Maybe<T> {
  try {
    const out = attempt();
    if (!(out instanceof Promise) || retries === 0) return out;
    return out.catch((error: unknown) =>
      isConflict(error) ? againOnConflict(attempt, retries - 1) : Promise.reject(error),
    );
  } catch (error) {
    if (retries > 0 && isConflict(error)) return againOnConflict(attempt, retries - 1);
    throw error;
  }
}

/**
 * Episodes as rows of the memories table. An append locks the (tenant, scope, text) keys it may
 * merge into (PostgreSQL advisory locks; SQLite's writer lock), reads the stored episodes inside
 * the transaction, applies the merge rule, writes the rows with their history events and
 * enqueues the plans' jobs, all in one transaction. The partial unique index on
 * (tenant, scope_key, text_key) among mergeable rows is the last guard: two appends of one
 * text can never leave two rows.
 */
export class SqlEpisodeStore implements EpisodeStore {
  constructor(private readonly engine: SqlEngine) {}

  appendEpisodes(writes: EpisodeWrite[], options: AppendEpisodesOptions): Promise<EpisodePlan[]> {
    return this.engine.guard('appendEpisodes', () => {
      assertWrites(writes, options ?? { at: '' });
      const at = instantArgument(options.at, 'at');
      if (writes.length === 0) return [];
      const dims = [...new Set((options.vectors ?? []).flatMap((v) => (v ? [v.embedding.dim] : [])))];
      const attempt = (): Maybe<EpisodePlan[]> =>
        this.engine.runner.transaction('appendEpisodes', (sql) => steps(this.append(sql, writes, { ...options, at })));
      return andThen(this.engine.prepareVectors(dims), () =>
        andThen(againOnConflict(attempt, 2), (plans) => {
          this.engine.afterWrite('insert', plans.length);
          return plans;
        }),
      );
    });
  }

  private *append(sql: SqlQueries, writes: EpisodeWrite[], options: AppendEpisodesOptions): Steps<EpisodePlan[]> {
    const { dialect, newId } = this.engine;
    yield* wait(dialect.lockKeys(sql, mergeKeys(writes)));
    const stored = yield* wait(this.storedEpisodes(sql, writes));
    const lookup = (scopeKey: string, textKey: string): Episode | null =>
      stored.get(`${scopeKey}\u0000${textKey}`)?.episode ?? null;
    const plans = planEpisodeWrites(writes, lookup, { now: () => new Date(options.at), newId });
    const { inserted, events } = rowsOf(plans, writes, stored, options, newId);
    if (inserted.size > 0) yield* wait(this.engine.insertRows(sql, [...inserted.values()]));
    yield* wait(this.writeMerges(sql, plans, inserted, options.at));
    yield* wait(appendHistory(sql, dialect, events));
    const jobs = options.jobsFor?.(plans) ?? [];
    const tenants = new Set(writes.map((w) => w.scope.tenant));
    for (const tenant of new Set(jobs.map((job) => job?.scope?.tenant))) {
      // An append never reaches past its own tenants.
      if (!tenants.has(tenant))
        throw new EngramError('INVALID_INPUT', `a job of tenant ${tenant} from an append to others`);
      const own = jobs.filter((job) => job.scope.tenant === tenant);
      assertNewJobs(tenant, own);
      yield* wait(enqueueJobs(sql, dialect, tenant, own, options.at, newId));
    }
    return plans;
  }

  /** The final count and sources of every stored episode the plans merged into. */
  private writeMerges(
    sql: SqlQueries,
    plans: EpisodePlan[],
    inserted: Map<string, StoredRecord>,
    at: string,
  ): Maybe<void> {
    const engine = this.engine;
    const last = new Map<string, Episode>();
    for (const plan of plans)
      if (plan.action === 'merge' && !inserted.has(plan.episode.id)) last.set(plan.episode.id, plan.episode);
    return steps(
      (function* () {
        for (const episode of last.values()) {
          yield* wait(
            engine.updateRow(sql, {
              tenant: episode.scope.tenant,
              id: episode.id,
              patch: { updatedAt: at, seenCount: episode.count, episode: documentOf(episode) },
              vector: undefined,
            }),
          );
        }
      })(),
    );
  }

  /** Stored mergeable episodes (and their memories) of the writes' (scope, text key)s, by {@link slotOf}. */
  private storedEpisodes(sql: SqlQueries, writes: EpisodeWrite[]): Maybe<Map<string, StoredEpisode>> {
    const { dialect } = this.engine;
    const groups = new Map<string, { tenant: string; scopeKey: string; textKeys: Set<string> }>();
    for (const w of writes) {
      const scopeKey = episodeScopeKey(w.scope);
      const slot = JSON.stringify([w.scope.tenant, scopeKey]);
      const group = groups.get(slot) ?? { tenant: w.scope.tenant, scopeKey, textKeys: new Set<string>() };
      group.textKeys.add(turnTextKey(w.turn.text));
      groups.set(slot, group);
    }
    return steps(
      (function* () {
        const out = new Map<string, StoredEpisode>();
        for (const group of groups.values()) {
          const p = dialect.params();
          const rows = yield* wait(
            sql.all<EpisodeRow>(
              `SELECT ${EPISODE_SELECT} FROM ${dialect.table} m WHERE m.tenant = ${p.add(group.tenant)}
               AND m.scope_key = ${p.add(group.scopeKey)} AND ${dialect.anyOf('m.text_key', [...group.textKeys], p)}
               AND m.mergeable = 1${dialect.forUpdate}`,
              p.values,
            ),
          );
          for (const row of rows) {
            const episode = episodeFromRow(row, dialect.json);
            out.set(slotOf(episode), { episode, memory: dialect.toMemory(row) });
          }
        }
        return out;
      })(),
    );
  }

  getEpisodes(tenant: string, ids: string[]): Promise<Episode[]> {
    return this.engine.guard('getEpisodes', () => {
      assertTenant(tenant);
      assertIds(ids);
      if (ids.length === 0) return [];
      const { dialect } = this.engine;
      const p = dialect.params();
      const sql = `SELECT ${EPISODE_SELECT} FROM ${dialect.table} m
        WHERE m.tenant = ${p.add(tenant)} AND ${dialect.anyOf('m.id', [...new Set(ids)], p)} AND m.text_key IS NOT NULL`;
      return andThen(
        this.engine.runner.read('getEpisodes', (q) => q.all<EpisodeRow>(sql, p.values)),
        (rows) => inRequestedOrder(ids, rows, (row) => episodeFromRow(row, dialect.json)),
      );
    });
  }

  findEpisode(scope: Scope, textKey: string): Promise<Episode | null> {
    return this.engine.guard('findEpisode', () => {
      assertScope(scope);
      textArgument(textKey, 'textKey');
      const { dialect } = this.engine;
      const p = dialect.params();
      const sql = `SELECT ${EPISODE_SELECT} FROM ${dialect.table} m WHERE m.tenant = ${p.add(scope.tenant)}
        AND m.scope_key = ${p.add(episodeScopeKey(scope))} AND m.text_key = ${p.add(textKey)} AND m.mergeable = 1`;
      return andThen(
        this.engine.runner.read('findEpisode', (q) => q.all<EpisodeRow>(sql, p.values)),
        (rows) => (rows[0] === undefined ? null : episodeFromRow(rows[0], dialect.json)),
      );
    });
  }
}

import type { SqliteDatabase, SqliteStatement } from '../../util/sqlite-database.js';
import type { MemoryStatus, MemoryType } from '../../model/memory-type.js';
import type { MemoryText } from '../memory-store.js';
import { VALID_FROM_SQL } from '../sql/filter-where.js';
import { LexicalIndex } from './lexical-index.js';
import { VectorPartition, type SlotMeta } from './vector-partition.js';

/** Partition key for a query without a user: every user of the tenant. */
export const ALL_USERS = '\u0000*';

interface VectorRow {
  pk: number;
  id: string;
  user_id: string | null;
  embed_model: string | null;
  embed_dim: number | null;
  vector: Buffer | null;
  status: string;
  type: string;
  agent_id: string | null;
  session_id: string | null;
  collection: string | null;
  key: string | null;
  tags: string;
  updated_at: string;
  valid_from: string;
  valid_to: string | null;
}

interface ChangeRow {
  seq: number;
  tenant: string;
  id: string;
}

const VECTOR_COLUMNS =
  'm.pk AS pk, m.id AS id, m.user_id AS user_id, m.embed_model AS embed_model, m.embed_dim AS embed_dim, ' +
  'm.vector AS vector, m.status AS status, m.type AS type, m.agent_id AS agent_id, m.session_id AS session_id, ' +
  'm.collection AS collection, m.key AS key, m.tags AS tags, m.updated_at AS updated_at, ' +
  `${VALID_FROM_SQL} AS valid_from, m.valid_to AS valid_to`;

interface LoadedPartition {
  tenant: string;
  model: string;
  dim: number;
  user: string;
  partition: VectorPartition;
  /** Built on the first lexical query of the partition, then kept in step with it. */
  lexical: LexicalIndex | null;
}

/** The rows of a partition, as a WHERE fragment over alias `m`. */
function partitionWhere(tenant: string, model: string, dim: number, user: string): { sql: string; params: unknown[] } {
  const allUsers = user === ALL_USERS;
  return {
    sql: `m.tenant = ? AND m.embed_model = ? AND m.embed_dim = ? ${allUsers ? '' : 'AND m.user_id = ?'} AND m.vector IS NOT NULL`,
    params: allUsers ? [tenant, model, dim] : [tenant, model, dim, user],
  };
}

/** Options of {@link VectorCache}. */
export interface VectorCacheOptions {
  /** Upper bound on cached vector bytes; least recently used partitions are dropped beyond it. */
  maxBytes: number;
  /** When more changes than this arrive at once for a tenant, its partitions are reloaded lazily instead of patched. */
  reloadAbove: number;
  /** Partitions with at least this many rows pre-select candidates with an int8 copy. */
  quantizeAbove: number;
}

function metaOf(row: VectorRow): SlotMeta {
  let tags: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.tags);
    if (Array.isArray(parsed)) tags = parsed.filter((t): t is string => typeof t === 'string');
  } catch {
    tags = [];
  }
  return {
    status: row.status as MemoryStatus,
    type: row.type as MemoryType,
    agent: row.agent_id,
    session: row.session_id,
    collection: row.collection,
    key: row.key,
    tags,
    updatedAt: row.updated_at,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    pk: row.pk,
  };
}

/** A Float32Array over a blob of exactly `dim` float32 values, or null when the blob is corrupt. */
function blobVector(blob: Buffer, dim: number): Float32Array | null {
  if (blob.byteLength !== dim * 4) return null;
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, dim);
  return new Float32Array(new Uint8Array(blob).buffer, 0, dim);
}

/**
 * In-memory vector partitions over one SQLite connection, loaded lazily and kept in step with
 * the `memory_changes` log. Writes from this process mark the cache dirty; writes from other
 * processes are detected with `PRAGMA data_version`. Either way the next search first replays
 * the log entries after the last seen `seq` (re-reading those rows, which is idempotent).
 */
export class VectorCache {
  private readonly db: SqliteDatabase;
  private readonly options: VectorCacheOptions;
  private readonly partitions = new Map<string, LoadedPartition>();
  private lastSeq = 0;
  private dataVersion = -1;
  private readonly dataVersionStmt: SqliteStatement<[], number>;
  private dirty = true;
  private clock = 0;
  /** Rows skipped because their blob had the wrong length (observability, tests). */
  corruptSkipped = 0;

  private readonly maxSeqStmt: SqliteStatement<[], { seq: number | null }>;
  private readonly minSeqStmt: SqliteStatement<[], { seq: number | null }>;
  private readonly changesStmt: SqliteStatement<[number], ChangeRow>;
  private readonly rowStmt: SqliteStatement<[string, string], VectorRow & { text: string }>;

  constructor(db: SqliteDatabase, options: VectorCacheOptions) {
    this.db = db;
    this.options = options;
    this.dataVersionStmt = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.maxSeqStmt = db.prepare('SELECT max(seq) AS seq FROM memory_changes');
    this.minSeqStmt = db.prepare('SELECT min(seq) AS seq FROM memory_changes');
    this.changesStmt = db.prepare('SELECT seq, tenant, id FROM memory_changes WHERE seq > ? ORDER BY seq');
    this.rowStmt = db.prepare(
      `SELECT ${VECTOR_COLUMNS}, m.text AS text FROM memories m WHERE m.tenant = ? AND m.id = ?`,
    );
  }

  /** Called after every committed write of this process. */
  markDirty(): void {
    this.dirty = true;
  }

  /** Drops every partition (e.g. on close). */
  clear(): void {
    this.partitions.clear();
  }

  get cachedBytes(): number {
    let total = 0;
    for (const p of this.partitions.values()) total += p.partition.bytes + (p.lexical?.bytes ?? 0);
    return total;
  }

  get partitionCount(): number {
    return this.partitions.size;
  }

  get lexicalIndexCount(): number {
    let n = 0;
    for (const p of this.partitions.values()) if (p.lexical !== null) n++;
    return n;
  }

  /** Brings loaded partitions up to date with the database. Cheap when nothing changed. */
  sync(): void {
    const version = this.dataVersionStmt.get() as number;
    if (!this.dirty && version === this.dataVersion) return;
    this.dataVersion = version;
    this.dirty = false;
    if (this.partitions.size === 0) {
      this.lastSeq = this.maxSeqStmt.get()?.seq ?? 0;
      return;
    }
    const read = this.db.transaction(() => {
      const min = this.minSeqStmt.get()?.seq ?? null;
      if (min !== null && min > this.lastSeq + 1) {
        // The log was pruned past what this cache has seen: start over.
        this.partitions.clear();
        this.lastSeq = this.maxSeqStmt.get()?.seq ?? 0;
        return;
      }
      const changes = this.changesStmt.all(this.lastSeq);
      if (changes.length === 0) return;
      this.lastSeq = (changes[changes.length - 1] as ChangeRow).seq;
      const byTenant = new Map<string, Set<string>>();
      for (const change of changes) {
        let set = byTenant.get(change.tenant);
        if (set === undefined) byTenant.set(change.tenant, (set = new Set()));
        set.add(change.id);
      }
      for (const [tenant, ids] of byTenant) {
        const loaded = [...this.partitions.entries()].filter(([, p]) => p.tenant === tenant);
        if (loaded.length === 0) continue;
        if (ids.size > this.options.reloadAbove) {
          for (const [key] of loaded) this.partitions.delete(key);
          continue;
        }
        for (const id of ids)
          this.applyRow(
            tenant,
            id,
            loaded.map(([, p]) => p),
          );
      }
    });
    read.deferred();
  }

  private applyRow(tenant: string, id: string, loaded: LoadedPartition[]): void {
    for (const p of loaded) {
      const pk = p.partition.pkOf(id);
      p.partition.remove(id);
      if (pk !== undefined) p.lexical?.remove(pk);
    }
    const row = this.rowStmt.get(tenant, id);
    if (row === undefined || row.vector === null || row.embed_model === null || row.embed_dim === null) return;
    const vector = blobVector(row.vector, row.embed_dim);
    if (vector === null) {
      this.corruptSkipped++;
      return;
    }
    const meta = metaOf(row);
    for (const p of loaded) {
      if (p.model !== row.embed_model || p.dim !== row.embed_dim) continue;
      if (p.user !== ALL_USERS && p.user !== row.user_id) continue;
      p.partition.upsert(id, meta, vector);
      if (p.partition.has(id)) p.lexical?.add(id, meta, row.text);
    }
  }

  /** The partition for (tenant, model, dim, user or {@link ALL_USERS}), loading it on first use. */
  partition(tenant: string, model: string, dim: number, user: string): VectorPartition {
    return this.loaded(tenant, model, dim, user).partition;
  }

  /**
   * The partition and the inverted index of its rows' text, building the index on first use
   * (one read of the partition's texts); kept in step with writes like the vectors.
   */
  lexical(
    tenant: string,
    model: string,
    dim: number,
    user: string,
  ): { partition: VectorPartition; index: LexicalIndex } {
    const loaded = this.loaded(tenant, model, dim, user);
    if (loaded.lexical === null) {
      const index = new LexicalIndex();
      const where = partitionWhere(tenant, model, dim, user);
      const rows = this.db
        .prepare(`SELECT m.pk AS pk, m.text AS text FROM memories m WHERE ${where.sql} ORDER BY m.pk`)
        .iterate(...where.params) as IterableIterator<{ pk: number; text: string }>;
      const { partition } = loaded;
      for (const row of rows) {
        const slot = partition.slotByPk(row.pk);
        if (slot !== undefined) index.add(partition.idAt(slot), partition.metaAt(slot), row.text);
      }
      loaded.lexical = index;
      this.evict(JSON.stringify([tenant, model, dim, user]));
    }
    return { partition: loaded.partition, index: loaded.lexical };
  }

  /**
   * Texts of the given ids that a loaded lexical index of the tenant holds (after catching up
   * with the database); ids it does not hold are absent.
   */
  texts(tenant: string, ids: readonly string[]): Map<string, MemoryText> {
    this.sync();
    const out = new Map<string, MemoryText>();
    for (const p of this.partitions.values()) {
      if (p.tenant !== tenant || p.lexical === null) continue;
      for (const id of ids) {
        if (out.has(id)) continue;
        const pk = p.partition.pkOf(id);
        const doc = pk === undefined ? undefined : p.lexical.docOf(pk);
        if (doc === undefined) continue;
        out.set(id, { id, text: p.lexical.textOf(doc), updatedAt: p.lexical.metaOf(doc).updatedAt });
      }
    }
    return out;
  }

  private loaded(tenant: string, model: string, dim: number, user: string): LoadedPartition {
    this.sync();
    const key = JSON.stringify([tenant, model, dim, user]);
    let loaded = this.partitions.get(key);
    if (loaded === undefined) {
      loaded = { tenant, model, dim, user, partition: this.load(tenant, model, dim, user), lexical: null };
      this.partitions.set(key, loaded);
      this.evict(key);
    }
    loaded.partition.lastUsed = ++this.clock;
    return loaded;
  }

  private load(tenant: string, model: string, dim: number, user: string): VectorPartition {
    const where = partitionWhere(tenant, model, dim, user);
    const sql = `SELECT ${VECTOR_COLUMNS} FROM memories m WHERE ${where.sql}`;
    const params = where.params;
    const countSql = `SELECT count(*) AS n FROM memories m WHERE ${where.sql}`;
    const n = (this.db.prepare(countSql).get(...params) as { n: number }).n;
    const partition = new VectorPartition(dim, Math.max(n, 16), { quantizeAbove: this.options.quantizeAbove });
    partition.bulkLoad(() => {
      for (const row of this.db.prepare(sql).iterate(...params) as IterableIterator<VectorRow>) {
        if (row.vector === null) continue;
        const vector = blobVector(row.vector, dim);
        if (vector === null) {
          this.corruptSkipped++;
          continue;
        }
        partition.upsert(row.id, metaOf(row), vector);
      }
    });
    return partition;
  }

  private evict(keep: string): void {
    let total = this.cachedBytes;
    if (total <= this.options.maxBytes) return;
    const byAge = [...this.partitions.entries()]
      .filter(([key]) => key !== keep)
      .sort((a, b) => a[1].partition.lastUsed - b[1].partition.lastUsed);
    for (const [key, p] of byAge) {
      if (total <= this.options.maxBytes) break;
      total -= p.partition.bytes + (p.lexical?.bytes ?? 0);
      this.partitions.delete(key);
    }
  }
}

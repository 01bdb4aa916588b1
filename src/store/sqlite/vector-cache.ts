import type { SqliteDatabase, SqliteStatement } from '../../util/sqlite-database.js';
import type { DocumentAnalysis, DocumentAnalyzer } from '../../text/document-analyzer.js';
import { TermDictionary } from '../../text/term-dictionary.js';
import type { TermDocument } from '../../text/term-document.js';
import type { MemoryText, TextOptions } from '../memory-store.js';
import { DataVersionCheck } from './data-version-check.js';
import { LexicalIndex } from './lexical-index.js';
import { contextFromColumns } from '../memory-context.js';
import {
  ALL_USERS,
  TEXT_COLUMNS,
  VECTOR_COLUMNS,
  blobVector,
  metaOf,
  partitionWhere,
  type TextRow,
  type VectorRow,
} from './partition-rows.js';
import { PartitionLoader, type PartitionKey } from './partition-loader.js';
import type { RecentPartition } from './recent-partitions.js';
import { VectorPartition, type DocumentOf } from './vector-partition.js';

export { ALL_USERS } from './partition-rows.js';

interface ChangeRow {
  seq: number;
  tenant: string;
  id: string;
}

interface LoadedPartition {
  tenant: string;
  model: string;
  dim: number;
  user: string;
  partition: VectorPartition;
  /** Built on the first lexical query of the partition, then kept in step with it. */
  lexical: LexicalIndex | null;
}

/** Options of {@link VectorCache}. */
export interface VectorCacheOptions {
  /** Upper bound on cached vector bytes; least recently used partitions are dropped beyond it. */
  maxBytes: number;
  /** When more changes than this arrive at once for a tenant, its partitions are reloaded lazily instead of patched. */
  reloadAbove: number;
  /** Partitions with at least this many rows pre-select candidates with an int8 copy. */
  quantizeAbove: number;
  /** Makes each indexed row's document when it is indexed (see `LexicalIndex`); null makes none. */
  analyzer: DocumentAnalyzer | null;
  /** Told when the set of cached partitions (or their indexes) changed, e.g. to remember them for the next start. */
  onChange?: (() => void) | undefined;
  /** Told when another connection committed since the last look (what changed is not known: e.g. usage). */
  onForeignWrite?: (() => void) | undefined;
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
  /** The analyzer of every lexical index, and the dictionary their documents' terms are numbered in. */
  private readonly analysis: DocumentAnalysis | null;
  private lastSeq = 0;
  private dataVersion = -1;
  private readonly dataVersionCheck: DataVersionCheck;
  private dirty = true;
  /**
   * Bumped whenever {@link sync} finds the database changed (a write of this process, or another
   * connection's commit): a read remembered at one generation is still current while it holds.
   */
  generation = 0;
  private clock = 0;
  /** Partitions being loaded in the background, with the promise settled when each is in. */
  private readonly warming = new Map<string, { loader: PartitionLoader; done: Promise<void> }>();
  private stopped = false;
  /** Rows skipped because their blob had the wrong length (observability, tests). */
  corruptSkipped = 0;

  private readonly maxSeqStmt: SqliteStatement<[], { seq: number | null }>;
  private readonly minSeqStmt: SqliteStatement<[], { seq: number | null }>;
  private readonly changesStmt: SqliteStatement<[number], ChangeRow>;
  private readonly rowStmt: SqliteStatement<[string, string], VectorRow & TextRow>;

  constructor(db: SqliteDatabase, options: VectorCacheOptions) {
    this.db = db;
    this.options = options;
    this.analysis = options.analyzer === null ? null : { analyzer: options.analyzer, dictionary: new TermDictionary() };
    this.dataVersionCheck = new DataVersionCheck(db.prepare<[], number>('PRAGMA data_version').pluck());
    this.maxSeqStmt = db.prepare('SELECT max(seq) AS seq FROM memory_changes');
    this.minSeqStmt = db.prepare('SELECT min(seq) AS seq FROM memory_changes');
    this.changesStmt = db.prepare('SELECT seq, tenant, id FROM memory_changes WHERE seq > ? ORDER BY seq');
    this.rowStmt = db.prepare(
      `SELECT ${VECTOR_COLUMNS}, ${TEXT_COLUMNS} FROM memories m WHERE m.tenant = ? AND m.id = ?`,
    );
  }

  /** Called after every committed write of this process. */
  markDirty(): void {
    this.dirty = true;
  }

  /** Drops every partition and stops warming (e.g. on close). */
  clear(): void {
    this.stopped = true;
    this.partitions.clear();
  }

  /** Cached vectors over all partitions. */
  get memoryCount(): number {
    let n = 0;
    for (const p of this.partitions.values()) n += p.partition.size;
    return n;
  }

  /** The cached partitions, most recently used first, with their sizes (what a next start may warm). */
  recent(): RecentPartition[] {
    return [...this.partitions.values()]
      .sort((a, b) => b.partition.lastUsed - a.partition.lastUsed)
      .map((p) => ({
        tenant: p.tenant,
        model: p.model,
        dim: p.dim,
        user: p.user,
        memories: p.partition.size,
        bytes: p.partition.bytes + (p.lexical?.bytes ?? 0),
      }));
  }

  /**
   * Loads these partitions with their lexical indexes, one chunk of rows at a time with `pause()`
   * between chunks, so the process keeps serving; a search of a partition being warmed waits for
   * it (see {@link whileWarming}) or, called synchronously, finishes loading it. Rows written
   * meanwhile are caught up from the change log. Returns the partitions now cached.
   */
  async warm(keys: readonly PartitionKey[], pause: () => Promise<void>): Promise<PartitionKey[]> {
    const warmed: PartitionKey[] = [];
    for (const key of keys) {
      const id = JSON.stringify([key.tenant, key.model, key.dim, key.user]);
      if (this.stopped) break;
      if (!this.partitions.has(id)) {
        const loader = new PartitionLoader(this.db, key, {
          quantizeAbove: this.options.quantizeAbove,
          analysis: this.analysis,
        });
        let settle = (): void => undefined;
        this.warming.set(id, { loader, done: new Promise<void>((resolve) => (settle = resolve)) });
        try {
          while (!this.stopped && this.warming.has(id) && !loader.step()) await pause();
          if (this.warming.has(id) && !this.stopped) this.install(id, loader);
        } finally {
          this.warming.delete(id);
          settle();
        }
      }
      if (this.partitions.has(id)) warmed.push(key);
    }
    return warmed;
  }

  /** Settles once the partition is in, when it is being warmed now; null otherwise. */
  whileWarming(tenant: string, model: string, dim: number, user: string): Promise<void> | null {
    return this.warming.get(JSON.stringify([tenant, model, dim, user]))?.done ?? null;
  }

  /** Adds a loaded partition, first replaying onto it the changes logged since its loader started. */
  private install(id: string, loader: PartitionLoader): void {
    this.sync();
    this.corruptSkipped += loader.corruptSkipped;
    const { tenant, model, dim, user } = loader.key;
    const entry: LoadedPartition = { tenant, model, dim, user, partition: loader.partition, lexical: loader.lexical };
    const min = this.minSeqStmt.get()?.seq ?? null;
    // The log was pruned past the load's start: its rows cannot be caught up (a query loads it lazily).
    if (min !== null && min > loader.startSeq + 1) return;
    const changed = new Set<string>();
    for (const change of this.changesStmt.all(loader.startSeq)) {
      if (change.seq <= this.lastSeq && change.tenant === tenant) changed.add(change.id);
    }
    for (const memoryId of changed) this.applyRow(tenant, memoryId, [entry]);
    entry.partition.lastUsed = ++this.clock;
    this.partitions.set(id, entry);
    this.evict(id);
    this.options.onChange?.();
  }

  get cachedBytes(): number {
    let total = 0;
    for (const p of this.partitions.values()) total += p.partition.bytes + (p.lexical?.bytes ?? 0);
    return total + (this.analysis?.dictionary.bytes ?? 0);
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
    const version = this.dataVersionCheck.read();
    if (!this.dirty && version === this.dataVersion) return;
    if (version !== this.dataVersion) this.options.onForeignWrite?.();
    this.dataVersion = version;
    this.generation++;
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
    const context = contextFromColumns(row);
    for (const p of loaded) {
      if (p.model !== row.embed_model || p.dim !== row.embed_dim) continue;
      if (p.user !== ALL_USERS && p.user !== row.user_id) continue;
      p.partition.upsert(id, meta, vector);
      if (p.partition.has(id)) p.lexical?.add(id, meta, row.text, context);
    }
  }

  /** Name of the analyzer whose documents the lexical indexes hold; undefined when they hold none. */
  get analyzerName(): string | undefined {
    return this.analysis?.analyzer.name;
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
      const index = new LexicalIndex(this.analysis);
      const where = partitionWhere(tenant, model, dim, user);
      const rows = this.db
        .prepare(`SELECT m.pk AS pk, ${TEXT_COLUMNS} FROM memories m WHERE ${where.sql} ORDER BY m.pk`)
        .iterate(...where.params) as IterableIterator<{ pk: number } & TextRow>;
      const { partition } = loaded;
      for (const row of rows) {
        const slot = partition.slotByPk(row.pk);
        if (slot !== undefined)
          index.add(partition.idAt(slot), partition.metaAt(slot), row.text, contextFromColumns(row));
      }
      loaded.lexical = index;
      this.evict(JSON.stringify([tenant, model, dim, user]));
      this.options.onChange?.();
    }
    return { partition: loaded.partition, index: loaded.lexical };
  }

  /**
   * The documents `analyzer` made of this partition's rows, by pk: null unless its lexical index
   * is loaded and is that analyzer's. For a search of this partition made now.
   */
  documentsOf(
    tenant: string,
    space: { model: string; dim: number },
    user: string,
    analyzer: string,
  ): DocumentOf | null {
    const index = this.partitions.get(JSON.stringify([tenant, space.model, space.dim, user]))?.lexical;
    if (index === null || index === undefined || index.analyzerName !== analyzer) return null;
    return (pk) => index.documentOfPk(pk);
  }

  /**
   * The documents `analyzer` made of the given ids' rows that a loaded lexical index of the tenant
   * holds (after catching up with the database); other ids are absent.
   */
  documents(tenant: string, ids: readonly string[], analyzer: string): Map<string, TermDocument> {
    return this.fromIndexes(tenant, ids, (index, doc) =>
      index.analyzerName === analyzer ? index.documentOf(doc) : null,
    );
  }

  /**
   * Texts of the given ids (with their contexts when `context`, and their documents when
   * `analyzer` names the index's analyzer) that a loaded lexical index of the tenant holds (after
   * catching up with the database); ids it does not hold are absent.
   */
  texts(tenant: string, ids: readonly string[], options: TextOptions = {}): Map<string, MemoryText> {
    const context = options.context === true;
    return this.fromIndexes(tenant, ids, (index, doc, id) => {
      const { updatedAt, type } = index.metaOf(doc);
      const found: MemoryText = { id, text: index.textOf(doc), updatedAt, type };
      if (context) found.context = index.contextOf(doc);
      const document = options.analyzer === index.analyzerName ? index.documentOf(doc) : null;
      if (document !== null) found.document = document;
      return found;
    });
  }

  /**
   * Stored vectors of the given ids that a loaded partition of the tenant holds exactly (after
   * catching up with the database, see `VectorPartition.storedVectors`), as copies; other ids are
   * absent.
   */
  vectors(tenant: string, ids: readonly string[]): Map<string, Float32Array> {
    return this.fromPartitions(tenant, ids, (partition, asked) => partition.storedVectors(asked));
  }

  /**
   * `maxCosine` of the stored vectors of the given ids over `queries`, bit for bit, where a loaded
   * partition of the tenant holds them exactly (see `VectorPartition.storedCosines`); other ids are
   * absent.
   */
  storedCosines(tenant: string, ids: readonly string[], queries: readonly Float32Array[]): Map<string, number> {
    return this.fromPartitions(tenant, ids, (partition, asked) => partition.storedCosines(asked, queries));
  }

  /**
   * {@link storedCosines} of the rows with these `memories.pk`s, in their order (undefined where
   * no loaded partition of the tenant holds the row exactly).
   */
  storedCosinesOfPks(
    tenant: string,
    pks: readonly number[],
    queries: readonly Float32Array[],
  ): Array<number | undefined> {
    this.sync();
    let out: Array<number | undefined> | null = null;
    let missing: number[] = [];
    for (const p of this.partitions.values()) {
      if (p.tenant !== tenant) continue;
      // The first partition is asked for every row (usually the one holding them all), the next
      // ones for the rows still missing: one pass over the rows, no array per row.
      if (out === null) out = p.partition.storedCosinesOfPks(pks, queries);
      else {
        const found = p.partition.storedCosinesOfPks(
          missing.map((i) => pks[i] as number),
          queries,
        );
        for (let j = 0; j < missing.length; j++) out[missing[j] as number] = found[j];
      }
      missing = [];
      for (let i = 0; i < out.length; i++) if (out[i] === undefined) missing.push(i);
      if (missing.length === 0) break;
    }
    return out ?? pks.map(() => undefined);
  }

  /**
   * What `read` makes of each of `ids` (once) whose row a loaded lexical index of the tenant holds
   * (after catching up with the database), from that index and the row's document number; ids it
   * makes null of, and the others, are absent.
   */
  private fromIndexes<T>(
    tenant: string,
    ids: readonly string[],
    read: (index: LexicalIndex, doc: number, id: string) => T | null,
  ): Map<string, T> {
    this.sync();
    const out = new Map<string, T>();
    for (const p of this.partitions.values()) {
      const index = p.lexical;
      if (p.tenant !== tenant || index === null) continue;
      for (const id of ids) {
        if (out.has(id)) continue;
        const pk = p.partition.pkOf(id);
        const doc = pk === undefined ? undefined : index.docOf(pk);
        if (doc === undefined) continue;
        const value = read(index, doc, id);
        if (value !== null) out.set(id, value);
      }
    }
    return out;
  }

  /** What `read` finds of the ids in the tenant's loaded partitions, each id from the first that holds it. */
  private fromPartitions<T>(
    tenant: string,
    ids: readonly string[],
    read: (partition: VectorPartition, ids: readonly string[]) => Map<string, T>,
  ): Map<string, T> {
    this.sync();
    const out = new Map<string, T>();
    for (const p of this.partitions.values()) {
      if (p.tenant !== tenant) continue;
      const missing = out.size === 0 ? ids : ids.filter((id) => !out.has(id));
      for (const [id, value] of read(p.partition, missing)) out.set(id, value);
    }
    return out;
  }

  private loaded(tenant: string, model: string, dim: number, user: string): LoadedPartition {
    this.sync();
    const key = JSON.stringify([tenant, model, dim, user]);
    const warming = this.warming.get(key);
    if (warming !== undefined && !this.partitions.has(key)) {
      // Asked for now: finish the background load here rather than reading the rows again.
      while (!warming.loader.step());
      this.warming.delete(key);
      this.install(key, warming.loader);
    }
    let loaded = this.partitions.get(key);
    if (loaded === undefined) {
      loaded = { tenant, model, dim, user, partition: this.load(tenant, model, dim, user), lexical: null };
      this.partitions.set(key, loaded);
      this.evict(key);
      this.options.onChange?.();
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

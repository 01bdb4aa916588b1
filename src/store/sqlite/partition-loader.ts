import type { SqliteDatabase, SqliteStatement } from '../../util/sqlite-database.js';
import type { DocumentAnalysis } from '../../text/document-analyzer.js';
import { LexicalIndex } from './lexical-index.js';
import { contextFromColumns } from '../memory-context.js';
import {
  TEXT_COLUMNS,
  VECTOR_COLUMNS,
  blobVector,
  metaOf,
  partitionWhere,
  type TextRow,
  type VectorRow,
} from './partition-rows.js';
import { VectorPartition } from './vector-partition.js';

/** Which partition of the vector cache: (tenant, embedding model, dim, user or all users). */
export interface PartitionKey {
  tenant: string;
  model: string;
  dim: number;
  /** A user id, or `ALL_USERS`. */
  user: string;
}

/** Rows read per step: about 4 MB of 512-dim vectors, a few milliseconds of work. */
const CHUNK_ROWS = 2048;

/**
 * Loads one vector partition and its lexical index in a single read of its rows — vectors,
 * filter fields, text and context together, in `pk` order (the order the lexical index numbers its
 * documents in) — one chunk per {@link step}, so a caller can yield between chunks and keep
 * serving. Rows written while it loads are the caller's to catch up, from the change log after
 * {@link startSeq}.
 */
export class PartitionLoader {
  readonly partition: VectorPartition;
  readonly lexical: LexicalIndex;
  /** The change log's last entry before the first chunk was read. */
  readonly startSeq: number;
  /** Rows skipped because their blob had the wrong length. */
  corruptSkipped = 0;
  private readonly chunk: SqliteStatement<unknown[], VectorRow & TextRow>;
  private readonly params: unknown[];
  private lastPk = 0;
  private done = false;

  constructor(
    db: SqliteDatabase,
    readonly key: PartitionKey,
    options: { quantizeAbove: number; analysis: DocumentAnalysis | null },
  ) {
    this.lexical = new LexicalIndex(options.analysis);
    const where = partitionWhere(key.tenant, key.model, key.dim, key.user);
    this.params = where.params;
    this.startSeq = (db.prepare('SELECT max(seq) AS seq FROM memory_changes').get() as { seq: number | null }).seq ?? 0;
    const rows = (
      db.prepare(`SELECT count(*) AS n FROM memories m WHERE ${where.sql}`).get(...where.params) as { n: number }
    ).n;
    this.partition = new VectorPartition(key.dim, Math.max(rows, 16), { quantizeAbove: options.quantizeAbove });
    this.partition.beginBulk();
    this.chunk = db.prepare(
      `SELECT ${VECTOR_COLUMNS}, ${TEXT_COLUMNS} FROM memories m WHERE ${where.sql} AND m.pk > ? ORDER BY m.pk LIMIT ${CHUNK_ROWS}`,
    );
  }

  /** Reads the next chunk; true once every row is read (the partition's bulk load has then ended). */
  step(): boolean {
    if (this.done) return true;
    const rows = this.chunk.all(...this.params, this.lastPk);
    for (const row of rows) {
      this.lastPk = row.pk;
      if (row.vector === null) continue;
      const vector = blobVector(row.vector, this.key.dim);
      if (vector === null) {
        this.corruptSkipped++;
        continue;
      }
      const meta = metaOf(row);
      this.partition.upsert(row.id, meta, vector);
      if (this.partition.has(row.id)) this.lexical.add(row.id, meta, row.text, contextFromColumns(row));
    }
    if (rows.length < CHUNK_ROWS) {
      this.done = true;
      this.partition.endBulk();
    }
    return this.done;
  }
}

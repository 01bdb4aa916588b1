import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { EngramError } from '../model/errors.js';
import { openSqliteDatabase, type SqliteDatabase } from '../util/sqlite-database.js';
import { textHash, type EmbeddingCache } from './embedding-cache.js';

/** Options of {@link createSqliteEmbeddingCache}. */
export interface SqliteEmbeddingCacheOptions {
  /** Database file (created with its folder when missing); `':memory:'` for a private in-memory one. */
  path: string;
  /** Table name. @default 'embedding_cache' */
  table?: string | undefined;
}

/**
 * A persistent {@link EmbeddingCache} in SQLite (WAL). Rows are keyed by
 * (model id, sha256 of the text) and hold the vector as a little-endian float32 blob.
 * Several processes may share one file.
 */
export function createSqliteEmbeddingCache(options: SqliteEmbeddingCacheOptions): EmbeddingCache {
  const table = options.table ?? 'embedding_cache';
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) {
    throw new EngramError('CONFIG_ERROR', `Invalid cache table name '${table}'`);
  }
  let db: SqliteDatabase;
  try {
    if (options.path !== ':memory:') mkdirSync(path.dirname(path.resolve(options.path)), { recursive: true });
    db = openSqliteDatabase(options.path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec(
      `CREATE TABLE IF NOT EXISTS ${table} (
         model TEXT NOT NULL,
         text_sha256 TEXT NOT NULL,
         dim INTEGER NOT NULL,
         vector BLOB NOT NULL,
         PRIMARY KEY (model, text_sha256)
       ) WITHOUT ROWID`,
    );
  } catch (cause) {
    throw new EngramError('CONFIG_ERROR', `Cannot open the embedding cache at ${options.path}`, { cause });
  }
  const select = db.prepare<[string, string], { dim: number; vector: Buffer }>(
    `SELECT dim, vector FROM ${table} WHERE model = ? AND text_sha256 = ?`,
  );
  const upsert = db.prepare<[string, string, number, Buffer]>(
    `INSERT OR REPLACE INTO ${table} (model, text_sha256, dim, vector) VALUES (?, ?, ?, ?)`,
  );
  const writeAll = db.transaction((model: string, items: ReadonlyArray<readonly [string, Float32Array]>) => {
    for (const [text, vector] of items) {
      upsert.run(
        model,
        textHash(text),
        vector.length,
        Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength),
      );
    }
  });
  let closed = false;
  const ensureOpen = (): void => {
    if (closed) throw new EngramError('STORE_CLOSED', 'The embedding cache is closed');
  };

  return {
    getMany(model, texts) {
      ensureOpen();
      return texts.map((text) => {
        const row = select.get(model, textHash(text));
        if (!row || row.vector.length !== row.dim * 4) return undefined;
        const copy = new Uint8Array(row.vector.length);
        copy.set(row.vector);
        return new Float32Array(copy.buffer);
      });
    },
    setMany(model, items) {
      ensureOpen();
      if (items.length > 0) writeAll(model, items);
    },
    close() {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}

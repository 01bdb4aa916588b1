/**
 * pgvector setup ("migrate"): the extension, and one HNSW index per embedding space.
 *
 * pgvector indexes need a fixed dimension while `engram_memories.embedding` is an untyped
 * `vector` (rows of several models and dimensions share the table, `embed_model` / `embed_dim`
 * say which), so each (model, dim) gets a partial expression index:
 *   CREATE INDEX … USING hnsw ((embedding::vector(768)) vector_cosine_ops)
 *     WHERE embed_model = 'text-embedding-3-small' AND embed_dim = 768
 * A search names the same expression and predicate (literals, so the planner can prove the
 * predicate whatever the plan cache does) and gets that space's graph only. Dimensions above
 * 2,000 (pgvector's limit for `vector`) up to 4,000 index a `halfvec` copy instead (candidates
 * only: they are re-scored exactly); above that, search stays an exact scan.
 */
import { createHash } from 'node:crypto';
import type { SqlQueries } from '../sql/query-runner.js';
import { quoteIdent, quoteLiteral, type PgNames } from './pg-names.js';

/** Largest dimension pgvector indexes as `vector`; up to {@link HALFVEC_MAX_DIM} as `halfvec`. */
export const VECTOR_MAX_DIM = 2000;
export const HALFVEC_MAX_DIM = 4000;

/** One embedding model at one dimension: what a dense index and a dense search are for. */
export interface EmbeddingSpace {
  model: string;
  dim: number;
}

/** What the server offers, read once (at migrate / open) and handed to every search. */
export interface PgVectorCapabilities {
  /** pgvector's version, or null when the extension is not installed in this database. */
  version: string | null;
  /** pgvector ≥ 0.8: `hnsw.iterative_scan` keeps scanning until enough rows pass the filter. */
  iterativeScan: boolean;
  /** Citus is installed: transaction-local settings must be propagated to the workers. */
  citus: boolean;
}

function atLeast(version: string, major: number, minor: number): boolean {
  const [a = 0, b = 0] = version.split('.').map((p) => Number.parseInt(p, 10));
  return a > major || (a === major && b >= minor);
}

/** Reads {@link PgVectorCapabilities} from the catalog (no side effects). */
export async function detectPgVector(sql: SqlQueries): Promise<PgVectorCapabilities> {
  const rows = await sql.all<{ extname: string; extversion: string }>(
    `SELECT extname, extversion FROM pg_extension WHERE extname IN ('vector', 'citus')`,
    [],
  );
  const version = rows.find((r) => r.extname === 'vector')?.extversion ?? null;
  return {
    version,
    iterativeScan: version !== null && atLeast(version, 0, 8),
    citus: rows.some((r) => r.extname === 'citus'),
  };
}

/** What {@link ensurePgVectorExtension} found or did. */
export interface PgVectorExtensionReport {
  /**
   * 'present' (already created), 'created' (by this call), 'unavailable' (not installed on the
   * server), 'no-privilege' (installed, but this role may not create it), 'failed' (CREATE
   * EXTENSION raised: see `message`; the caller's transaction, if any, is aborted).
   */
  state: 'present' | 'created' | 'unavailable' | 'no-privilege' | 'failed';
  /** pgvector's version when present or created. */
  version: string | null;
  /** One sentence for `engram migrate` to print. */
  message: string;
}

const INSTALL_HINT =
  'install it on the server (postgresql-<major>-pgvector, or any managed PostgreSQL: they all offer it), then run `engram migrate` again';

/**
 * Creates the `vector` extension when it is installed on the server and this role may create
 * it (superuser, or CREATE on the database for a trusted extension); otherwise says why not
 * without raising. On a Citus coordinator `CREATE EXTENSION` also creates it on every worker.
 */
export async function ensurePgVectorExtension(sql: SqlQueries): Promise<PgVectorExtensionReport> {
  const found = await sql.all<{
    installed: string | null;
    available: string | null;
    trusted: boolean | null;
    may: boolean;
  }>(
    `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed,
            (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available,
            (SELECT bool_or(trusted) FROM pg_available_extension_versions WHERE name = 'vector') AS trusted,
            (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS may`,
    [],
  );
  const row = found[0];
  if (row?.installed) {
    return { state: 'present', version: row.installed, message: `pgvector ${row.installed} is installed` };
  }
  if (!row?.available) {
    return {
      state: 'unavailable',
      version: null,
      message: `pgvector is not available on this server: dense search scores rows in the application; ${INSTALL_HINT}`,
    };
  }
  const privileged = await sql.all<{ ok: boolean }>(
    `SELECT $1::boolean OR ($2::boolean AND has_database_privilege(current_database(), 'CREATE')) AS ok`,
    [row.may, row.trusted === true],
  );
  if (!privileged[0]?.ok) {
    return {
      state: 'no-privilege',
      version: null,
      message:
        'pgvector is available on this server but this role may not create it (needs a superuser): ' +
        'run `CREATE EXTENSION vector;` as one (on a managed service, its admin role), then `engram migrate` again',
    };
  }
  try {
    await sql.run('CREATE EXTENSION IF NOT EXISTS vector', []);
  } catch (error) {
    return {
      state: 'failed',
      version: null,
      message: `CREATE EXTENSION vector failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const version = (await detectPgVector(sql)).version;
  return { state: 'created', version, message: `created pgvector ${version ?? ''}`.trim() };
}

/** How a space is indexed: the cast both the index and the search use, or none. */
export interface DenseIndexShape {
  /** `vector` up to 2,000 dims, `halfvec` up to 4,000, null above (exact scans only). */
  type: 'vector' | 'halfvec' | null;
  /** The indexed expression, e.g. `(embedding::vector(768))`. */
  expression: string | null;
  /** The operator class, e.g. `vector_cosine_ops`. */
  opclass: string | null;
  /** The partial-index predicate with literals: `embed_model = '…' AND embed_dim = 768`. */
  predicate: string;
}

/** The index expression and predicate of `space` (also what searches must repeat). */
export function denseIndexShape(space: EmbeddingSpace): DenseIndexShape {
  if (!Number.isInteger(space.dim) || space.dim <= 0) throw new RangeError(`invalid dimension ${space.dim}`);
  const predicate = `embed_model = ${quoteLiteral(space.model)} AND embed_dim = ${space.dim}`;
  const type = space.dim <= VECTOR_MAX_DIM ? 'vector' : space.dim <= HALFVEC_MAX_DIM ? 'halfvec' : null;
  if (type === null) return { type, expression: null, opclass: null, predicate };
  return { type, expression: `(embedding::${type}(${space.dim}))`, opclass: `${type}_cosine_ops`, predicate };
}

/**
 * Index name of `space`: `<prefix>_hnsw_<dim>_<10 hex of sha1(model)>` (model names can be
 * long or hold any character; identifiers stop at 63 bytes).
 */
export function denseIndexName(prefix: string, space: EmbeddingSpace): string {
  const hash = createHash('sha1').update(space.model).digest('hex').slice(0, 10);
  return `${prefix}_hnsw_${space.dim}_${hash}`;
}

/**
 * Default HNSW build parameters: m 32, ef_construction 128, not pgvector's 16 / 64. With m 16 a
 * group of more than 2m = 32 mutually close rows (many near-copies of one memory) fills every
 * layer-0 neighbour list with itself and the graph falls apart into islands: on the bench's
 * 100k corpus (LoCoMo turns with 36 perturbed copies each) recall@10 was 0.14–0.27 at any
 * ef_search or ef_construction, against 0.99–1.00 with m 32 (bench/store-pgvector.ts). The price
 * is a slower build and slower inserts while the index is maintained.
 */
export const HNSW_BUILD_DEFAULTS = { m: 32, efConstruction: 128 } as const;

/** HNSW build parameters; {@link HNSW_BUILD_DEFAULTS} unless given. */
export interface HnswBuildOptions {
  /** @default 32 */
  m?: number | undefined;
  /** @default 128 */
  efConstruction?: number | undefined;
  /**
   * `CREATE INDEX CONCURRENTLY` (writes go on during the build; cannot run inside a
   * transaction). Without it the caller must be inside a transaction. @default false
   */
  concurrently?: boolean | undefined;
}

/** What {@link ensureDenseIndex} did for one space. */
export interface DenseIndexReport extends EmbeddingSpace {
  index: string;
  /** 'rebuilt' = an invalid index (a failed concurrent build) was dropped and built again. */
  state: 'present' | 'created' | 'rebuilt' | 'skipped';
  message: string;
}

/**
 * Creates the HNSW index of `space` unless it exists (valid). Serialised per index by an
 * advisory lock, so processes meeting a new model at once do not race inside CREATE INDEX.
 * Without `concurrently` it must run inside a transaction (the lock is transaction-scoped).
 */
export async function ensureDenseIndex(
  sql: SqlQueries,
  names: PgNames,
  space: EmbeddingSpace,
  options: HnswBuildOptions = {},
): Promise<DenseIndexReport> {
  const index = denseIndexName(names.prefix, space);
  const shape = denseIndexShape(space);
  if (shape.type === null) {
    return {
      ...space,
      index,
      state: 'skipped',
      message: `${space.model}/${space.dim}: over ${HALFVEC_MAX_DIM} dimensions pgvector cannot index; searches scan exactly`,
    };
  }
  const lockKey = `engram-hnsw:${names.memories}:${index}`;
  if (options.concurrently) await sql.all('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
  else await sql.all('SELECT pg_advisory_xact_lock(hashtext($1))', [lockKey]);
  try {
    const qualified = `${names.schema}.${quoteIdent(index)}`;
    const existing = await sql.all<{ valid: boolean }>(
      `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
      [qualified],
    );
    const valid = existing[0]?.valid;
    if (valid === true) return { ...space, index, state: 'present', message: `${index} exists` };
    const concurrently = options.concurrently ? ' CONCURRENTLY' : '';
    if (valid === false) await sql.run(`DROP INDEX${concurrently} IF EXISTS ${qualified}`, []);
    const m = options.m ?? HNSW_BUILD_DEFAULTS.m;
    const ef = options.efConstruction ?? HNSW_BUILD_DEFAULTS.efConstruction;
    if (!Number.isInteger(m) || !Number.isInteger(ef) || m < 2 || ef < 2 * m) {
      throw new RangeError(
        `invalid HNSW parameters m=${m} ef_construction=${ef} (need integers, ef_construction >= 2m)`,
      );
    }
    await sql.run(
      `CREATE INDEX${concurrently} IF NOT EXISTS ${quoteIdent(index)} ON ${names.memories} ` +
        `USING hnsw (${shape.expression} ${shape.opclass}) WITH (m = ${m}, ef_construction = ${ef}) WHERE ${shape.predicate}`,
      [],
    );
    const state = valid === false ? 'rebuilt' : 'created';
    return {
      ...space,
      index,
      state,
      message: `${state} ${index} (hnsw, ${shape.opclass}, m ${m}, ef_construction ${ef})`,
    };
  } finally {
    if (options.concurrently) await sql.all('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]);
  }
}

/** Every (model, dim) with at least one stored vector, with its row count. */
export function listEmbeddingSpaces(
  sql: SqlQueries,
  names: PgNames,
): Promise<Array<EmbeddingSpace & { rows: number }>> {
  return Promise.resolve(
    sql.all<EmbeddingSpace & { rows: number }>(
      `SELECT embed_model AS model, embed_dim AS dim, count(*)::int AS rows FROM ${names.memories}
        WHERE embed_model IS NOT NULL AND embed_dim IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2`,
      [],
    ),
  );
}

/** What {@link migrateDenseIndexes} did: the extension, then one entry per space. */
export interface PgVectorMigrationReport {
  extension: PgVectorExtensionReport;
  /** False when the schema has no `embedding` column (pg-migrations adds it once the extension exists). */
  column: boolean;
  indexes: DenseIndexReport[];
}

/**
 * `engram migrate`'s pgvector step, after the schema migrations: makes sure the extension
 * exists (or says why it cannot) and builds the HNSW index of every space that has vectors.
 * Each index is built in its own call, so run it with `concurrently` on a live database.
 * Without `concurrently`, `sql` must be inside a transaction.
 */
export async function migrateDenseIndexes(
  sql: SqlQueries,
  names: PgNames,
  options: HnswBuildOptions = {},
): Promise<PgVectorMigrationReport> {
  const extension = await ensurePgVectorExtension(sql);
  if (extension.state !== 'present' && extension.state !== 'created') return { extension, column: false, indexes: [] };
  const col = await sql.all<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'embedding' AND NOT attisdropped`,
    [names.memories],
  );
  if ((col[0]?.n ?? 0) === 0) return { extension, column: false, indexes: [] };
  const indexes: DenseIndexReport[] = [];
  for (const space of await listEmbeddingSpaces(sql, names)) {
    indexes.push(await ensureDenseIndex(sql, names, space, options));
  }
  return { extension, column: true, indexes };
}

/**
 * Citus: detect a coordinator, find what in a schema blocks distribution, and distribute it —
 * every table with a tenant column hash-distributed on it and co-located with the others (so a
 * tenant's rows of every table live on one node and per-tenant queries route to one shard),
 * every other table a reference table (a full copy on every node).
 *
 * Distribution rules checked here (Citus 13): a PRIMARY KEY, UNIQUE or EXCLUDE constraint, and a
 * unique index, of a distributed table must include the distribution column; a foreign key from
 * a distributed table must point at a reference table or at a co-located distributed table with
 * the distribution column on both sides; a reference table may not reference a distributed one;
 * triggers need `citus.enable_unsafe_triggers`. Sequences (serial / identity) are allowed but
 * their values are then only unique, not gap-free or ordered across nodes: they are reported as
 * notes. `ON CONFLICT` targets are statements, not catalog: on a distributed table their
 * conflict target must include the distribution column (test/store/citus-routing.test.ts reads
 * the store's statements).
 */
import type { SqlQueries } from '../sql/query-runner.js';
import { quoteIdent } from './pg-names.js';

/** What {@link detectCitus} found. */
export interface CitusStatus {
  /** Citus is created in this database. */
  installed: boolean;
  version: string | null;
  /** This node holds the metadata (`citus_is_coordinator()`): DDL and distribution run here. */
  coordinator: boolean;
  /** Active primary worker nodes. */
  workers: number;
}

/** Reads {@link CitusStatus} (no side effects; `installed: false` on plain PostgreSQL). */
export async function detectCitus(sql: SqlQueries): Promise<CitusStatus> {
  const ext = await sql.all<{ v: string }>(`SELECT extversion AS v FROM pg_extension WHERE extname = 'citus'`, []);
  const version = ext[0]?.v ?? null;
  if (version === null) return { installed: false, version: null, coordinator: false, workers: 0 };
  const rows = await sql.all<{ coordinator: boolean; workers: number }>(
    `SELECT citus_is_coordinator() AS coordinator,
            (SELECT count(*)::int FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' AND isactive) AS workers`,
    [],
  );
  return { installed: true, version, coordinator: rows[0]?.coordinator ?? false, workers: rows[0]?.workers ?? 0 };
}

/** How one table is (to be) placed. */
export type CitusTableKind = 'distributed' | 'reference';

/** One table of the schema and what stands in the way of placing it. */
export interface CitusTablePlan {
  /** Unqualified table name. */
  table: string;
  kind: CitusTableKind;
  /** Reasons `create_distributed_table` / `create_reference_table` would refuse (or break) it. */
  blockers: string[];
  /** Allowed, but worth knowing (sequences). */
  notes: string[];
  /** Tables of the schema this one's foreign keys point at (they must be placed first). */
  references: string[];
}

interface TableRow {
  oid: number;
  name: string;
  has_tenant: boolean;
  tenant_attnum: number | null;
  /** `text COLLATE "C"` etc.: co-located tables need the same type and collation. */
  tenant_type: string | null;
}

interface ConstraintRow {
  table_oid: number;
  name: string;
  type: string;
  keys: number[] | null;
  ref_oid: number | null;
  ref_keys: number[] | null;
  ref_tenant_attnum: number | null;
}

/**
 * Classifies every ordinary table of `schema` (or those named in `only`; a `column` column ⇒
 * distributed on it, else reference) and lists the blockers and notes of each, from the catalog.
 */
export async function planCitusDistribution(
  sql: SqlQueries,
  schema: string,
  column = 'tenant',
  only?: readonly string[],
): Promise<CitusTablePlan[]> {
  const all = await sql.all<TableRow>(
    `SELECT c.oid::int AS oid, c.relname AS name, a.attnum IS NOT NULL AS has_tenant, a.attnum::int AS tenant_attnum,
              CASE WHEN a.attnum IS NULL THEN NULL ELSE format_type(a.atttypid, a.atttypmod) ||
                coalesce(' COLLATE ' || quote_ident(co.collname), '') END AS tenant_type
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = $2 AND NOT a.attisdropped
         LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND NOT c.relispartition
        ORDER BY c.relname`,
    [schema, column],
  );
  const tables = only === undefined ? all : all.filter((t) => only.includes(t.name));
  const byOid = new Map(all.map((t) => [t.oid, t]));
  // Co-location anchor: the memories table when the schema has it, else the first tenant table.
  const anchor = tables.find((t) => t.name === 'engram_memories' && t.has_tenant) ?? tables.find((t) => t.has_tenant);
  const constraints = await sql.all<ConstraintRow>(
    `SELECT k.conrelid::int AS table_oid, k.conname AS name, k.contype::text AS type, k.conkey::int[] AS keys,
              NULLIF(k.confrelid, 0)::int AS ref_oid, k.confkey::int[] AS ref_keys,
              (SELECT attnum::int FROM pg_attribute WHERE attrelid = k.confrelid AND attname = $2 AND NOT attisdropped) AS ref_tenant_attnum
         FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND k.contype IN ('p', 'u', 'x', 'f')`,
    [schema, column],
  );
  const uniqueIndexes = await sql.all<{ table_oid: number; name: string; keys: number[] }>(
    `SELECT i.indrelid::int AS table_oid, ic.relname AS name, i.indkey::int[] AS keys
         FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid JOIN pg_class c ON c.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND i.indisunique
          AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
    [schema],
  );
  const extras = await sql.all<{ table_oid: number; what: string; name: string }>(
    `SELECT a.attrelid::int AS table_oid, 'sequence' AS what, a.attname AS name
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped
          AND (a.attidentity <> '' OR pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%')
       UNION ALL
       SELECT t.tgrelid::int, 'trigger', t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal`,
    [schema],
  );

  return tables.map((t) => {
    const kind: CitusTableKind = t.has_tenant ? 'distributed' : 'reference';
    const blockers: string[] = [];
    const notes: string[] = [];
    const references = new Set<string>();
    if (kind === 'distributed' && anchor !== undefined && t.tenant_type !== anchor.tenant_type) {
      blockers.push(
        `${column} is ${t.tenant_type ?? '?'}, not ${anchor.tenant_type ?? '?'} as in ${anchor.name}: it cannot be co-located`,
      );
    }
    for (const k of constraints.filter((c) => c.table_oid === t.oid)) {
      const label = { p: 'primary key', u: 'unique constraint', x: 'exclusion constraint', f: 'foreign key' }[k.type];
      if (k.type !== 'f') {
        if (kind === 'distributed' && !(k.keys ?? []).includes(t.tenant_attnum ?? -1))
          blockers.push(`${label} ${k.name} does not include ${column}`);
        continue;
      }
      const target = k.ref_oid === null ? undefined : byOid.get(k.ref_oid);
      const targetKind: CitusTableKind | 'outside' =
        target === undefined ? 'outside' : target.has_tenant ? 'distributed' : 'reference';
      if (target !== undefined && target.oid !== t.oid) references.add(target.name);
      if (targetKind === 'outside') blockers.push(`${label} ${k.name} points outside schema ${schema}`);
      else if (kind === 'reference' && targetKind === 'distributed')
        blockers.push(`${label} ${k.name}: a reference table cannot reference the distributed ${target?.name}`);
      else if (kind === 'distributed' && targetKind === 'distributed') {
        const i = (k.keys ?? []).indexOf(t.tenant_attnum ?? -1);
        if (i < 0 || (k.ref_keys ?? [])[i] !== k.ref_tenant_attnum)
          blockers.push(`${label} ${k.name} to ${target?.name} does not pair ${column} with ${column}`);
      }
    }
    for (const u of uniqueIndexes.filter((x) => x.table_oid === t.oid)) {
      if (kind === 'distributed' && !u.keys.includes(t.tenant_attnum ?? -1))
        blockers.push(`unique index ${u.name} does not include ${column}`);
    }
    for (const e of extras.filter((x) => x.table_oid === t.oid)) {
      if (e.what === 'trigger') blockers.push(`trigger ${e.name} (Citus needs citus.enable_unsafe_triggers)`);
      else
        notes.push(
          `column ${e.name} takes values from a sequence: unique across nodes, not gap-free or in insert order`,
        );
    }
    return { table: t.name, kind, blockers, notes, references: [...references].sort() };
  });
}

/** Reference tables first, then distributed ones; each after the tables its foreign keys point at. */
function placementOrder(plans: CitusTablePlan[]): CitusTablePlan[] {
  const byName = new Map(plans.map((p) => [p.table, p]));
  const out: CitusTablePlan[] = [];
  const seen = new Set<string>();
  const visit = (plan: CitusTablePlan): void => {
    if (seen.has(plan.table)) return;
    seen.add(plan.table);
    for (const ref of plan.references) {
      const target = byName.get(ref);
      if (target !== undefined) visit(target);
    }
    out.push(plan);
  };
  for (const kind of ['reference', 'distributed'] as const) for (const p of plans) if (p.kind === kind) visit(p);
  return out;
}

/** Options of {@link distributeSchema}. */
export interface DistributeOptions {
  /** Distribution column of per-tenant tables. @default 'tenant' */
  column?: string | undefined;
  /** Shards of the first distributed table (the rest co-locate with it). @default Citus' citus.shard_count (32) */
  shardCount?: number | undefined;
  /** Place only these tables (unqualified names); the schema may hold others. @default every table */
  tables?: readonly string[] | undefined;
}

/** What {@link distributeSchema} did with one table. */
export interface CitusTableReport extends CitusTablePlan {
  /** 'placed' by this call, 'already' placed as planned, 'blocked' (see blockers), 'mismatch' (placed otherwise). */
  state: 'placed' | 'already' | 'blocked' | 'mismatch';
}

/**
 * Distributes every table of `schema` as {@link planCitusDistribution} plans it; idempotent
 * (placed tables are left alone). Run it on the coordinator, outside a transaction, after the
 * schema migrations: distributing copies existing rows to the shards. Tables with blockers are
 * reported, not touched.
 */
export async function distributeSchema(
  sql: SqlQueries,
  schema: string,
  options: DistributeOptions = {},
): Promise<CitusTableReport[]> {
  const column = options.column ?? 'tenant';
  const status = await detectCitus(sql);
  if (!status.coordinator) throw new Error('distributeSchema must run on a Citus coordinator');
  const placed = new Map(
    (
      await sql.all<{ name: string; method: string; colocation: number }>(
        `SELECT c.relname AS name, p.partmethod::text AS method, p.colocationid::int AS colocation
           FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
           JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1`,
        [schema],
      )
    ).map((r) => [r.name, r]),
  );
  const plans = placementOrder(await planCitusDistribution(sql, schema, column, options.tables));
  let colocateWith: string | undefined = plans.find((p) => placed.get(p.table)?.method === 'h')?.table;
  const out: CitusTableReport[] = [];
  for (const plan of plans) {
    const qualified = `${quoteIdent(schema)}.${quoteIdent(plan.table)}`;
    const existing = placed.get(plan.table);
    if (existing !== undefined) {
      const asPlanned = plan.kind === 'distributed' ? existing.method === 'h' : existing.method === 'n';
      out.push({ ...plan, state: asPlanned ? 'already' : 'mismatch' });
      continue;
    }
    const unplaced = plan.references.filter((r) => !out.some((o) => o.table === r && o.state !== 'blocked'));
    if (plan.blockers.length > 0 || unplaced.length > 0) {
      const blockers = [...plan.blockers, ...unplaced.map((r) => `references ${r}, which cannot be placed`)];
      out.push({ ...plan, blockers, state: 'blocked' });
      continue;
    }
    if (plan.kind === 'reference') {
      await sql.all('SELECT create_reference_table($1)', [qualified]);
    } else if (colocateWith === undefined) {
      await sql.all(
        options.shardCount === undefined
          ? `SELECT create_distributed_table($1, $2, colocate_with => 'none')`
          : `SELECT create_distributed_table($1, $2, colocate_with => 'none', shard_count => ${Math.trunc(options.shardCount)})`,
        [qualified, column],
      );
      colocateWith = plan.table;
    } else {
      await sql.all('SELECT create_distributed_table($1, $2, colocate_with => $3)', [
        qualified,
        column,
        `${quoteIdent(schema)}.${quoteIdent(colocateWith)}`,
      ]);
    }
    out.push({ ...plan, state: 'placed' });
  }
  return out;
}

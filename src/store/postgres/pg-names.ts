/** Quotes an SQL identifier ("a""b"). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Table and index names of one Engram schema, already quoted and qualified. */
export interface PgNames {
  schema: string;
  memories: string;
  /** One row per change to a memory (formation's history log). */
  history: string;
  /** Formation's work queue. */
  jobs: string;
  migrations: string;
  /** Unqualified prefix for index names. */
  prefix: string;
  /** Tables holding one row per tenant's item, keyed by `tenant` first (distributed by it). */
  tenantTables: string[];
  /** Small tables shared by every tenant (reference tables when distributed). */
  globalTables: string[];
}

/** Names for tables in `schema`. */
export function pgNames(schema: string): PgNames {
  const s = quoteIdent(schema);
  const memories = `${s}.engram_memories`;
  const history = `${s}.engram_memory_history`;
  const jobs = `${s}.engram_formation_jobs`;
  const migrations = `${s}.engram_schema_migrations`;
  return {
    schema: s,
    memories,
    history,
    jobs,
    migrations,
    prefix: 'engram_memories',
    tenantTables: [memories, history, jobs],
    globalTables: [migrations],
  };
}

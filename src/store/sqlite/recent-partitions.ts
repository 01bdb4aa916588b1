import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** A partition the vector cache held, as remembered for the next start. */
export interface RecentPartition {
  tenant: string;
  model: string;
  dim: number;
  /** A user id, or `ALL_USERS`. */
  user: string;
  /** Cached vectors, and the bytes the cache counted for them (with the lexical index). */
  memories: number;
  bytes: number;
}

interface RecentFile {
  version: 1;
  /** Most recently used first. */
  partitions: readonly RecentPartition[];
}

function isRecent(value: unknown): value is RecentPartition {
  const p = value as Partial<RecentPartition> | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    typeof p.tenant === 'string' &&
    typeof p.model === 'string' &&
    typeof p.user === 'string' &&
    Number.isInteger(p.dim) &&
    Number.isFinite(p.memories) &&
    Number.isFinite(p.bytes)
  );
}

/**
 * The partitions a vector cache remembered in `file` (most recent first). A missing, unreadable
 * or malformed file remembers nothing: it is a hint for warming up, never a source of truth.
 */
export function readRecentPartitions(file: string): RecentPartition[] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<RecentFile>;
    return parsed.version === 1 && Array.isArray(parsed.partitions) ? parsed.partitions.filter(isRecent) : [];
  } catch {
    return [];
  }
}

function content(partitions: readonly RecentPartition[]): string {
  return `${JSON.stringify({ version: 1, partitions } satisfies RecentFile)}\n`;
}

/** Remembers the partitions, replacing the file whole (write then rename). */
export function writeRecentPartitionsSync(file: string, partitions: readonly RecentPartition[]): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content(partitions));
  renameSync(tmp, file);
}

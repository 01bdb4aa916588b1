/**
 * A steady read and write load on a store, for fault runs (a node stopped, restarted, added):
 * writers insert new memories tenant by tenant, readers count and list; every request is
 * recorded with its outcome, error code and latency, and every acknowledged write is remembered
 * so that afterwards {@link verifyWrites} can check that each one is stored exactly once.
 */
import { isEngramError } from '../../src/model/errors.js';
import type { MemoryStore } from '../../src/store/memory-store.js';
import { makeRecord } from '../store/fixtures/records.js';

/** One request of the load and how it ended. */
export interface LoadRequest {
  tenant: string;
  kind: 'write' | 'read';
  /** performance.now() when it started and how long it took. */
  at: number;
  ms: number;
  ok: boolean;
  /** EngramError code of a failure ('?' for anything else). */
  code?: string | undefined;
  retryable?: boolean | undefined;
  /** The failure's message. */
  message?: string | undefined;
  /** Ids a write tried to store. */
  ids?: string[] | undefined;
}

/** Options of {@link startLoad}. */
export interface LoadOptions {
  /** Concurrent writer loops. @default 4 */
  writers?: number | undefined;
  /** Concurrent reader loops. @default 2 */
  readers?: number | undefined;
  /** Records per insert. @default 2 */
  batch?: number | undefined;
  /** Pause between a loop's requests, in ms. @default 5 */
  pauseMs?: number | undefined;
}

/** A running load. */
export interface Load {
  readonly requests: LoadRequest[];
  /** Stops the loops and waits for the requests in flight. */
  stop(): Promise<LoadRequest[]>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Starts writers and readers over `tenants`; each loop walks the tenants in turn. */
export function startLoad(store: MemoryStore, tenants: readonly string[], options: LoadOptions = {}): Load {
  const requests: LoadRequest[] = [];
  let running = true;
  const pause = options.pauseMs ?? 5;
  // Ids unique to this load, so that several loads can run on the same tenants.
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const record = async (tenant: string, kind: LoadRequest['kind'], work: () => Promise<unknown>, ids?: string[]) => {
    const at = performance.now();
    try {
      await work();
      requests.push({ tenant, kind, at, ms: performance.now() - at, ok: true, ids });
    } catch (error) {
      const code = isEngramError(error) ? error.code : '?';
      const retryable = isEngramError(error) ? error.isRetryable : false;
      const message = error instanceof Error ? error.message : String(error);
      requests.push({ tenant, kind, at, ms: performance.now() - at, ok: false, code, retryable, message, ids });
    }
  };
  const writer = async (w: number): Promise<void> => {
    for (let seq = 0; running; seq++) {
      const tenant = tenants[(w + seq) % tenants.length] as string;
      const ids = Array.from({ length: options.batch ?? 2 }, (_, k) => `${run}-w${w}-${seq}-${k}`);
      const records = ids.map((id) => makeRecord({ id, text: `load ${id}`, scope: { tenant, user: `u${seq % 3}` } }));
      await record(tenant, 'write', () => store.insert(records), ids);
      await sleep(pause);
    }
  };
  const reader = async (r: number): Promise<void> => {
    for (let seq = 0; running; seq++) {
      const tenant = tenants[(r * 7 + seq) % tenants.length] as string;
      await record(tenant, 'read', () =>
        seq % 2 === 0 ? store.count({ scope: { tenant } }) : store.list({ scope: { tenant } }, { limit: 5 }),
      );
      await sleep(pause);
    }
  };
  const loops = [
    ...Array.from({ length: options.writers ?? 4 }, (_, w) => writer(w)),
    ...Array.from({ length: options.readers ?? 2 }, (_, r) => reader(r)),
  ];
  return {
    requests,
    async stop() {
      running = false;
      await Promise.all(loops);
      return requests;
    },
  };
}

/** What {@link verifyWrites} found. */
export interface WriteCheck {
  /** Writes acknowledged (their insert resolved) and the ids they stored. */
  acknowledged: number;
  /** Acknowledged ids that are not stored: lost writes (the goal is 0). */
  lost: string[];
  /** Failed writes whose rows are stored after all (the outcome was unknown to the caller). */
  failedButStored: number;
  /** Failed writes with nothing stored. */
  failedNotStored: number;
}

/** Reads back every write of the load: acknowledged ones must be stored, failed ones are classified. */
export async function verifyWrites(store: MemoryStore, requests: readonly LoadRequest[]): Promise<WriteCheck> {
  const writes = requests.filter((r) => r.kind === 'write');
  const check: WriteCheck = { acknowledged: 0, lost: [], failedButStored: 0, failedNotStored: 0 };
  for (const write of writes) {
    const ids = write.ids ?? [];
    const found = new Set((await store.get(write.tenant, ids)).map((m) => m.id));
    if (write.ok) {
      check.acknowledged += 1;
      for (const id of ids) if (!found.has(id)) check.lost.push(`${write.tenant}/${id}`);
    } else if (found.size > 0) check.failedButStored += 1;
    else check.failedNotStored += 1;
  }
  return check;
}

/** Requests started in [from, to), split by whether their tenant is in `tenants`. */
export function requestsBetween(
  requests: readonly LoadRequest[],
  from: number,
  to: number,
  tenants: ReadonlySet<string>,
): { inside: LoadRequest[]; outside: LoadRequest[] } {
  const window = requests.filter((r) => r.at >= from && r.at < to);
  return { inside: window.filter((r) => tenants.has(r.tenant)), outside: window.filter((r) => !tenants.has(r.tenant)) };
}

/** Counts of a list of requests: total, failed, and failures by code. */
export function tally(requests: readonly LoadRequest[]): {
  total: number;
  failed: number;
  codes: Record<string, number>;
} {
  const codes: Record<string, number> = {};
  for (const r of requests) if (!r.ok) codes[r.code ?? '?'] = (codes[r.code ?? '?'] ?? 0) + 1;
  return { total: requests.length, failed: requests.filter((r) => !r.ok).length, codes };
}

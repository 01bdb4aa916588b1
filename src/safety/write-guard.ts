import { EngramError, isEngramError } from '../model/errors.js';
import type { JsonObject } from '../model/json.js';
import type { EmbeddingInfo, Memory } from '../model/memory.js';
import type { MemoryType } from '../model/memory-type.js';
import type { SafetyPolicyPatch } from '../model/safety-policy-patch.js';
import { applyWriteSafety } from './apply-write-safety.js';
import { CleanStrings } from './clean-strings.js';
import { runSafety } from './run-safety.js';
import type { SafetyFields } from './memory-fields.js';
import { DEFAULT_SAFETY_POLICY, mergeSafetyPolicy, type SafetyPolicy } from './safety-policy.js';
import { emptyReport, type SafetyReport } from './safety-report.js';
import { mergeReports, readStoredReport, withStoredReport } from './stored-report.js';

/** A tenant's policy patch (over the instance's), or none. Looked up on every write. */
export type TenantPolicyLookup = (
  tenant: string,
) => SafetyPolicyPatch | null | undefined | Promise<SafetyPolicyPatch | null | undefined>;

/** Where tenants' policies live (e.g. a server's tenant settings), and how to let go of it. */
export interface TenantPolicySource {
  policyOf: TenantPolicyLookup;
  /** Called by `Engram.close` (unless `ownResources` is false). */
  close?(): void | Promise<void>;
}

/** Write safety of one Engram instance (`EngramOptions.safety`). */
export interface WriteSafetyOptions {
  /** The instance's policy over the defaults. @default {} (DEFAULT_SAFETY_POLICY) */
  policy?: SafetyPolicyPatch | undefined;
  /** Each tenant's policy over the instance's (the server's tenant settings). @default none */
  tenantPolicy?: TenantPolicyLookup | TenantPolicySource | undefined;
}

/** A validated input or patch as the facade holds it: metadata is always an object when present. */
type GuardedFields = SafetyFields & { metadata?: JsonObject | undefined };

/** What a stored record needs beyond its strings: its vector goes when its text changes. */
export interface GuardedRecord extends GuardedFields {
  text: string;
  metadata: JsonObject;
  vector: Float32Array | null;
  embedding: EmbeddingInfo | null;
}

const MAX_CACHED_POLICIES = 256;
const PATCH_FIELDS = ['text', 'key', 'tags', 'summary', 'background', 'sources', 'metadata'] as const;

function configError(error: unknown, where: string): never {
  if (isEngramError(error, 'INVALID_INPUT')) {
    throw new EngramError('CONFIG_ERROR', `${where}: ${error.message}`, { cause: error, details: error.details });
  }
  throw error;
}

/**
 * The write guard of the facade: resolves the policy of one write (the instance's, the tenant's,
 * then the call's, which can only tighten) and applies it to what is about to be stored, with
 * the memory's safety report in `metadata.engramSafety`. Every write path goes through it:
 * `add` / `addMany` (and what calls them: import, capture, REST, MCP, the CLI), `update`'s patch,
 * `restore`'s records and formation's turns. Policies are cached per (tenant patch, call patch).
 */
export class WriteGuard {
  readonly #instance: SafetyPolicy;
  readonly #tenantPolicy: TenantPolicySource | undefined;
  readonly #cache = new Map<string, SafetyPolicy>();

  /** @throws EngramError('CONFIG_ERROR') when the instance policy is not a valid patch. */
  constructor(options: WriteSafetyOptions = {}) {
    try {
      this.#instance = mergeSafetyPolicy(DEFAULT_SAFETY_POLICY, options.policy);
    } catch (error) {
      configError(error, 'the instance safety policy');
    }
    const source = options.tenantPolicy;
    this.#tenantPolicy = typeof source === 'function' ? { policyOf: source } : source;
  }

  /** Lets go of the tenant policy source. */
  async close(): Promise<void> {
    await this.#tenantPolicy?.close?.();
  }

  /** The instance's policy (defaults and `options.policy`), before any tenant's. */
  get instancePolicy(): SafetyPolicy {
    return this.#instance;
  }

  /**
   * The policy in force for a write into `tenant` with the call's patch.
   *
   * @throws EngramError('INVALID_INPUT') for a bad call patch (its paths start with `safety`);
   *   EngramError('CONFIG_ERROR') for a bad tenant setting.
   */
  async policy(tenant: string, call?: SafetyPolicyPatch | undefined): Promise<SafetyPolicy> {
    const patch =
      this.#tenantPolicy === undefined ? undefined : ((await this.#tenantPolicy.policyOf(tenant)) ?? undefined);
    if (patch === undefined && call === undefined) return this.#instance;
    const key = JSON.stringify([patch ?? null, call ?? null]);
    const hit = this.#cache.get(key);
    if (hit !== undefined) return hit;
    let base: SafetyPolicy;
    try {
      base = mergeSafetyPolicy(this.#instance, patch);
    } catch (error) {
      configError(error, `the safety policy of tenant ${tenant}`);
    }
    const policy = mergeSafetyPolicy(base, call, 'tighten');
    if (this.#cache.size >= MAX_CACHED_POLICIES) this.#cache.clear();
    this.#cache.set(key, policy);
    return policy;
  }

  /**
   * A recall or search query with what the tenant's policy masks (or rejects) masked, so the
   * embedder, the planner and the reasoner never receive it either; never refused, never flagged.
   */
  async query(text: string, tenant: string): Promise<string> {
    const policy = await this.policy(tenant);
    if (!policy.enabled || text === '') return text;
    return runSafety({ text }, policy, 'scrub').value.text ?? text;
  }

  /**
   * New memories: each masked, its report in its metadata (a caller's own `engramSafety` is
   * replaced). `field` prefixes the paths of a rejection (`memories[3].text`);
   * `options.recogniseMasks` counts masks already in the text (formation's facts, see `runSafety`).
   *
   * @throws EngramError('SENSITIVE_DATA_REJECTED' | 'INSTRUCTION_REJECTED') naming category and field, never the value.
   */
  inputs<T extends GuardedFields & { metadata: JsonObject }>(
    inputs: readonly T[],
    policy: SafetyPolicy,
    field = 'memories',
    options: { recogniseMasks?: boolean | undefined } = {},
  ): T[] {
    if (!policy.enabled) return inputs.map((input) => this.#withoutForgedReport(input));
    const clean = new CleanStrings();
    const { recogniseMasks } = options;
    return inputs.map((input, i) => {
      const { input: out, report } = applyWriteSafety(input, policy, { field: `${field}[${i}]`, clean, recogniseMasks });
      const metadata = withStoredReport(out.metadata, report);
      return metadata === out.metadata ? out : { ...out, metadata };
    });
  }

  /**
   * A patch of a stored memory: its fields masked; the memory's report keeps what it said about
   * the fields the patch leaves alone and says what the patch's fields hold now.
   */
  patch<T extends GuardedFields & { type?: MemoryType | undefined }>(
    patch: T,
    existing: Pick<Memory, 'type' | 'metadata'>,
    policy: SafetyPolicy,
  ): T {
    const replaced = new Set<string>(PATCH_FIELDS.filter((name) => patch[name] !== undefined));
    if (replaced.size === 0) return patch;
    let out: T = patch;
    let report = emptyReport();
    if (policy.enabled) {
      // The guard reads the memory's type (tool memories may hold tool-call syntax).
      const result = applyWriteSafety({ ...patch, type: patch.type ?? existing.type }, policy, { field: 'patch' });
      out = result.changed ? { ...patch, ...pickFields(result.input) } : patch;
      report = result.report;
    }
    const previous = readStoredReport(existing.metadata);
    const merged = mergeReports(previous, report, replaced);
    if (out.metadata !== undefined) return { ...out, metadata: withStoredReport(out.metadata, merged) };
    if (sameReport(previous, merged)) return out;
    return { ...out, metadata: withStoredReport(existing.metadata, merged) };
  }

  /**
   * A record restored from an export, written to the store directly: masked like a new memory.
   * Its exported report's masked items are kept (the export is Engram's), its flags recomputed;
   * a record whose text was masked loses its vector, computed from the unmasked text (run
   * `engram reembed`).
   */
  record<T extends GuardedRecord>(
    record: T,
    policy: SafetyPolicy,
    field = 'record',
  ): { record: T; vectorDropped: boolean } {
    const previous = readStoredReport(record.metadata);
    const exported: SafetyReport = { ...previous, flags: [] };
    if (!policy.enabled) return { record: this.#withReport(record, exported), vectorDropped: false };
    const { input: out, report } = applyWriteSafety(record, policy, { field });
    const merged = mergeReports(exported, report, new Set());
    const vectorDropped = out.text !== record.text && record.vector !== null;
    const next = this.#withReport(out, merged);
    return { record: vectorDropped ? { ...next, vector: null, embedding: null } : next, vectorDropped };
  }

  #withReport<T extends GuardedFields & { metadata: JsonObject }>(target: T, report: SafetyReport): T {
    const metadata = withStoredReport(target.metadata, report);
    return metadata === target.metadata ? target : { ...target, metadata };
  }

  #withoutForgedReport<T extends GuardedFields & { metadata: JsonObject }>(input: T): T {
    return this.#withReport(input, emptyReport());
  }
}

function pickFields<T extends GuardedFields>(input: T): Partial<T> {
  const out: Partial<T> = {};
  for (const name of PATCH_FIELDS) if (input[name] !== undefined) (out as GuardedFields)[name] = input[name] as never;
  return out;
}

function sameReport(a: SafetyReport, b: SafetyReport): boolean {
  return JSON.stringify([a.items, a.flags]) === JSON.stringify([b.items, b.flags]);
}

import { Engram, type EngramOptions } from '../engram.js';
import type { Scope } from '../model/scope.js';
import { resolveEmbedder } from '../embed/index.js';
import { openStore } from '../store/open-store.js';
import { searchConfigFromEnv } from '../search/search-config-from-env.js';
import { EngramError } from '../model/errors.js';
import type { SafetyPolicyPatch } from '../model/safety-policy-patch.js';
import { dataDirTenantPolicy } from '../tenant/tenant-settings.js';
import { formationOptionsFromEnv } from '../formation/formation-options.js';
import { CALIBRATION_ENV, readCalibration } from './read-calibration.js';

/** Options every command accepts. */
export interface GlobalOptions {
  store?: string;
  embedder?: string;
  tenant: string;
  user?: string;
  agent?: string;
  session?: string;
  collection?: string;
  json?: boolean;
}

/** The scope named by the global flags. */
export function scopeOf(options: GlobalOptions): Scope {
  return {
    tenant: options.tenant,
    user: options.user,
    agent: options.agent,
    session: options.session,
    collection: options.collection,
  };
}

/** The instance's write-safety policy from `ENGRAM_SAFETY` (a JSON policy patch), or none. */
export function safetyPolicyFromEnv(
  env: Record<string, string | undefined> = process.env,
): SafetyPolicyPatch | undefined {
  const raw = env['ENGRAM_SAFETY'];
  if (raw === undefined || raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw) as SafetyPolicyPatch;
  } catch (cause) {
    throw new EngramError(
      'CONFIG_ERROR',
      'ENGRAM_SAFETY must be a JSON safety policy, e.g. {"actions":{"email":"mask"}}',
      {
        cause,
      },
    );
  }
}

/** What a command does with formation's background worker. */
export interface OpenSettings {
  /**
   * Run the formation worker in this process: the long-running commands (`serve`, `mcp`,
   * `formation run`) and `remember` waiting for its facts do; a one-shot command never takes
   * jobs it would have to abandon on exit. @default false
   */
  formationWorker?: boolean | undefined;
}

/**
 * The facade settings every command opens Engram with, besides store and embedder: the LLM, web
 * search and rerank services named by the environment (ENGRAM_LLM, ENGRAM_SEARXNG_URL,
 * ENGRAM_RERANK_URL, …), the default recall's calibration (ENGRAM_RECALL_CALIBRATION, a file of
 * `engram calibrate --save`) and the instance's write-safety policy (ENGRAM_SAFETY). `engram
 * search`, `engram serve` and `engram mcp` all search with these; formation takes its LLM from
 * ENGRAM_FORMATION_LLM or ENGRAM_LLM the same way.
 */
export function engramOptionsFromEnv(settings: OpenSettings = {}): Omit<EngramOptions, 'store' | 'embedder'> {
  const formation = formationOptionsFromEnv();
  const calibration = process.env[CALIBRATION_ENV];
  return {
    search: searchConfigFromEnv(),
    formation: settings.formationWorker ? formation : { ...formation, worker: false },
    ...(calibration ? { recall: { calibration: readCalibration(calibration) } } : {}),
    safety: { policy: safetyPolicyFromEnv() },
  };
}

/** The data directory whose tenant settings apply when a command names none. */
export const DEFAULT_DATA_DIR = '.engram';

/**
 * Opens Engram from the flags: store spec (env ENGRAM_STORE) and embedder name (env
 * ENGRAM_EMBEDDER), with the tenants' safety policies of `dataDir` (`engram safety set`).
 */
export async function openEngram(
  options: GlobalOptions,
  settings: OpenSettings = {},
  overrides: Pick<EngramOptions, 'recall' | 'trackUsage'> = {},
  dataDir = DEFAULT_DATA_DIR,
): Promise<Engram> {
  const store = await openStore(options.store ?? process.env['ENGRAM_STORE']);
  try {
    const embedder = await resolveEmbedder(options.embedder ?? process.env['ENGRAM_EMBEDDER'] ?? 'use-lite');
    const env = engramOptionsFromEnv(settings);
    const recall = { ...env.recall, ...overrides.recall };
    const safety = { ...env.safety, tenantPolicy: dataDirTenantPolicy(dataDir) };
    return await Engram.open({ ...env, safety, store, embedder, ...overrides, recall });
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Opens Engram from the flags, runs `fn`, and always closes it. */
export async function withEngram<T>(
  options: GlobalOptions,
  fn: (engram: Engram) => Promise<T>,
  settings: OpenSettings = {},
): Promise<T> {
  const engram = await openEngram(options, settings);
  try {
    return await fn(engram);
  } finally {
    await engram.close();
  }
}

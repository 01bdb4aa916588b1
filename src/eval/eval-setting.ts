import { EngramError } from '../model/errors.js';
import type { RecallProfile } from '../model/api.js';
import type { SearchMode } from '../model/search-options.js';

/** How an evaluation ranks: which entry point, and with which knobs. */
export interface EvalSetting {
  /** `recall` (the core recall) or a searcher mode. @default 'recall' */
  mode: 'recall' | SearchMode;
  /** Recall profile. @default the instance's default */
  profile?: RecallProfile | undefined;
  /** Lexical weight for queries of more than 2 tokens. @default the instance's */
  lexicalWeight?: number | undefined;
  /** Lexical weight for queries of at most 2 tokens. @default the instance's */
  lexicalWeightShort?: number | undefined;
  /** Searcher reranker name. @default 'noop' */
  reranker?: string | undefined;
  /** Embedder name (as for `--embedder`); another embedder needs a store embedded with it. @default the run's */
  embedder?: string | undefined;
  /** Store spec (SQLite file or postgres:// URL). @default the run's */
  store?: string | undefined;
  /** Minimum score of a hit. @default 0 (measures ranking, not the cut-off) */
  threshold?: number | undefined;
}

const MODES = ['recall', 'fast', 'fine', 'deep'] as const;
const PROFILES = ['engram', 'seed'] as const;
const KEYS = ['mode', 'profile', 'lexical', 'lexical-short', 'reranker', 'embedder', 'store', 'threshold'] as const;

function settingError(spec: string, message: string): never {
  throw new EngramError('INVALID_INPUT', `setting ${JSON.stringify(spec)}: ${message}`, { details: { setting: spec } });
}

function number(spec: string, key: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n))
    settingError(spec, `${key} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

function oneOf<T extends string>(spec: string, key: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    settingError(spec, `${key} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/**
 * Parses `key=value` pairs separated by commas, e.g. `mode=fast,reranker=cosine-local` or
 * `profile=seed`. Keys: mode (recall | fast | fine | deep), profile (engram | seed), lexical,
 * lexical-short, reranker, embedder, store, threshold. An empty spec is the default setting.
 */
export function parseEvalSetting(spec: string): EvalSetting {
  const setting: EvalSetting = { mode: 'recall' };
  for (const part of spec.split(',')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq < 0) settingError(spec, `expected key=value, got ${JSON.stringify(part)}`);
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    switch (key) {
      case 'mode':
        setting.mode = oneOf(spec, key, value, MODES);
        break;
      case 'profile':
        setting.profile = oneOf(spec, key, value, PROFILES);
        break;
      case 'lexical':
        setting.lexicalWeight = number(spec, key, value);
        break;
      case 'lexical-short':
        setting.lexicalWeightShort = number(spec, key, value);
        break;
      case 'threshold':
        setting.threshold = number(spec, key, value);
        break;
      case 'reranker':
      case 'embedder':
      case 'store':
        if (value === '') settingError(spec, `${key} is empty`);
        setting[key] = value;
        break;
      default:
        settingError(spec, `unknown key ${JSON.stringify(key)} (known: ${KEYS.join(', ')})`);
    }
  }
  if (setting.mode === 'recall' && setting.reranker !== undefined) {
    settingError(spec, 'reranker applies to the searcher (mode=fast, fine or deep), not to recall');
  }
  if (setting.mode !== 'recall' && setting.profile !== undefined) {
    settingError(spec, 'profile applies to recall (mode=recall)');
  }
  return setting;
}

/** A short label, e.g. `recall (profile seed, lexical 0.3)` or `search fast (reranker cosine-local)`. */
export function describeSetting(setting: EvalSetting): string {
  const knobs: string[] = [];
  if (setting.profile !== undefined) knobs.push(`profile ${setting.profile}`);
  if (setting.lexicalWeight !== undefined) knobs.push(`lexical ${setting.lexicalWeight}`);
  if (setting.lexicalWeightShort !== undefined) knobs.push(`lexical-short ${setting.lexicalWeightShort}`);
  if (setting.reranker !== undefined) knobs.push(`reranker ${setting.reranker}`);
  if (setting.embedder !== undefined) knobs.push(`embedder ${setting.embedder}`);
  if (setting.store !== undefined) knobs.push(`store ${setting.store}`);
  if (setting.threshold !== undefined) knobs.push(`threshold ${setting.threshold}`);
  const head = setting.mode === 'recall' ? 'recall' : `search ${setting.mode}`;
  return knobs.length === 0 ? head : `${head} (${knobs.join(', ')})`;
}

import type { Embedder } from '../embed/embedder.js';
import type { ChatModel } from '../llm/chat-model.js';
import { resolveChatModel } from '../llm/resolve-chat-model.js';
import { EngramError } from '../model/errors.js';
import type { Consolidator } from './consolidator.js';
import type { Extractor, WindowLimits } from './extractor.js';
import type { WorkerSettings } from './formation-worker.js';
import { createLlmConsolidator } from './llm-consolidator.js';
import { createLlmExtractor } from './llm-extractor.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js';
import { createRuleConsolidator } from './rule-consolidator.js';
import { createRuleExtractor } from './rule-extractor.js';

/** What becomes of the turns facts were formed from (see `FormationOptions.formedTurns`). */
export const FORMED_TURNS = ['superseded', 'archive', 'keep'] as const;
export type FormedTurns = (typeof FORMED_TURNS)[number];

/** Options of memory formation (`Engram.open({ formation })`). */
export interface FormationOptions {
  /**
   * The LLM of extraction and consolidation: a chat model, a `provider:model` spec resolved like
   * `ENGRAM_LLM` (e.g. `openai:gpt-4o-mini`, `anthropic:claude-haiku-4-5`, `ollama:llama3.1`), or
   * false for none. The library never reads it from the environment; the CLI, `engram serve` and
   * `engram mcp` take it from `ENGRAM_FORMATION_LLM`, else `ENGRAM_LLM` ({@link formationOptionsFromEnv}).
   * @default none
   */
  llm?: ChatModel | string | false | undefined;
  /**
   * What turns windows into candidate facts: `'llm'` (needs an LLM), `'rules'` (the rule-based
   * extractor: English first-person statements, labelled `rule-based`), `'none'` (episodes only:
   * turns are stored and deduplicated, no facts are formed), or your own {@link Extractor}.
   * @default 'llm' when an LLM is configured, else 'none'
   */
  extractor?: 'llm' | 'rules' | 'none' | Extractor | undefined;
  /** Size of one extraction call's window (LLM extractor). @default { maxTurns: 20, maxTokens: 4000 } */
  window?: Partial<WindowLimits> | undefined;
  /** LLM candidates below this confidence are dropped. @default 0.5 */
  minConfidence?: number | undefined;
  /** Existing memories each candidate is compared with. @default 5 */
  neighbours?: number | undefined;
  /** The in-process background worker, or false to leave the queue to another process (`engram formation run`). @default { concurrency: 2, leaseMs: 30000, pollMs: 1000, graceMs: 10000 } */
  worker?: Partial<WorkerSettings> | false | undefined;
  /** Retries of a failed window (429, 5xx, timeouts, invalid JSON), with exponential backoff. @default { maxAttempts: 6, baseMs: 2000, maxMs: 600000 } */
  retry?: Partial<RetryPolicy> | undefined;
  /** Windows waiting per tenant beyond which `remember` answers `STORE_BUSY` (retryable) instead of queueing more. @default 10000 */
  maxBacklog?: number | undefined;
  /** A captured session's open window is enqueued after this long without a new turn (full windows go at once). @default 30000 */
  captureQuietMs?: number | undefined;
  /** Offset of conversations' local time from UTC in minutes, for "yesterday" and "next Friday". @default 0 */
  timezoneOffsetMinutes?: number | undefined;
  /**
   * What becomes of a turn once facts were formed from it. `superseded`: a turn is archived when a
   * fact formed from it is superseded (recall no longer shows a raw turn saying what a newer fact
   * replaced — "I live in Lisbon" after the move — while every other turn stays recallable beside
   * its facts); `archive`: every turn a fact came from is archived (the facts stand for them);
   * `keep`: turns are never archived. `statuses: ['archived']` still lists an archived turn, and
   * its history says which window archived it. Turns nothing was extracted from, and turns not yet
   * formed, are always recallable.
   * @default 'superseded'
   */
  formedTurns?: FormedTurns | undefined;
}

/** Formation options with every part built and every default applied. */
export interface FormationConfig {
  llm: ChatModel | null;
  extractor: Extractor | null;
  consolidator: Consolidator;
  neighbours: number;
  worker: Partial<WorkerSettings> | null;
  retry: RetryPolicy;
  maxBacklog: number;
  captureQuietMs: number;
  timezoneOffsetMinutes: number;
  formedTurns: FormedTurns;
}

function positive(value: number | undefined, fallback: number, field: string, integer = true): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new EngramError('CONFIG_ERROR', `formation.${field} must be a positive ${integer ? 'integer' : 'number'}`, {
      details: { field: `formation.${field}` },
    });
  }
  return value;
}

function resolveLlm(option: FormationOptions['llm'], env: Record<string, string | undefined>): ChatModel | null {
  if (option === false || option === undefined) return null;
  if (typeof option === 'object' && option !== null) return option;
  return resolveChatModel(option, { env });
}

/**
 * Formation options from the environment, for the CLI, the server and MCP (the library reads
 * none): `ENGRAM_FORMATION_LLM`, else `ENGRAM_LLM` (`provider:model`, with `ENGRAM_LLM_BASE_URL`,
 * `ENGRAM_LLM_API_KEY`, `OPENAI_API_KEY`, `ANTHROPIC_API_KEY` as the searcher reads them);
 * `ENGRAM_FORMATION_EXTRACTOR` (`llm`, `rules`, `none`); `ENGRAM_FORMATION_CONCURRENCY`.
 */
export function formationOptionsFromEnv(env: Record<string, string | undefined> = process.env): FormationOptions {
  const options: FormationOptions = {};
  const llm = env.ENGRAM_FORMATION_LLM ?? env.ENGRAM_LLM;
  if (llm) options.llm = llm;
  const extractor = env.ENGRAM_FORMATION_EXTRACTOR;
  if (extractor) {
    if (!['llm', 'rules', 'none'].includes(extractor)) {
      throw new EngramError('CONFIG_ERROR', 'ENGRAM_FORMATION_EXTRACTOR must be llm, rules or none', {
        details: { field: 'ENGRAM_FORMATION_EXTRACTOR' },
      });
    }
    options.extractor = extractor as 'llm' | 'rules' | 'none';
  }
  const concurrency = env.ENGRAM_FORMATION_CONCURRENCY;
  if (concurrency) options.worker = { concurrency: Number(concurrency) };
  return options;
}

function resolveExtractor(options: FormationOptions, llm: ChatModel | null): Extractor | null {
  const choice = options.extractor ?? (llm ? 'llm' : 'none');
  if (typeof choice === 'object') return choice;
  if (choice === 'none') return null;
  if (choice === 'rules') return createRuleExtractor();
  if (choice !== 'llm') {
    throw new EngramError('CONFIG_ERROR', 'formation.extractor must be llm, rules, none or an Extractor', {
      details: { field: 'formation.extractor' },
    });
  }
  if (!llm) {
    throw new EngramError('CONFIG_ERROR', "formation.extractor 'llm' needs an LLM: set formation.llm or ENGRAM_LLM", {
      details: { field: 'formation.extractor' },
    });
  }
  return createLlmExtractor({
    model: llm,
    maxTurns: positive(options.window?.maxTurns, 20, 'window.maxTurns'),
    maxTokens: positive(options.window?.maxTokens, 4000, 'window.maxTokens'),
    minConfidence: options.minConfidence,
  });
}

/**
 * Builds formation from its options: the LLM (a `provider:model` spec goes through the resolver
 * the searcher's `ENGRAM_LLM` uses), the extractor, and the consolidator — the LLM one
 * (one call per window, falling back to the rules) with an LLM, the deterministic rules without.
 * Throws `CONFIG_ERROR` for an unusable option.
 */
export function resolveFormation(
  options: FormationOptions,
  deps: { embedder: Embedder; newId: () => string; env: Record<string, string | undefined> },
): FormationConfig {
  const llm = resolveLlm(options.llm, deps.env);
  const extractor = resolveExtractor(options, llm);
  const fallback = { embedder: deps.embedder };
  const consolidator = llm
    ? createLlmConsolidator({ newId: deps.newId }, { model: llm, fallback })
    : createRuleConsolidator({ newId: deps.newId }, fallback);
  const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  positive(retry.maxAttempts, 1, 'retry.maxAttempts');
  positive(retry.baseMs, 1, 'retry.baseMs', false);
  positive(retry.maxMs, 1, 'retry.maxMs', false);
  const worker = options.worker === false ? null : { ...options.worker };
  for (const field of ['concurrency', 'leaseMs', 'pollMs', 'graceMs'] as const) {
    if (worker?.[field] !== undefined) positive(worker[field], 1, `worker.${field}`, field === 'concurrency');
  }
  const formedTurns = options.formedTurns ?? 'superseded';
  if (!FORMED_TURNS.includes(formedTurns)) {
    throw new EngramError('CONFIG_ERROR', `formation.formedTurns must be one of: ${FORMED_TURNS.join(', ')}`, {
      details: { field: 'formation.formedTurns' },
    });
  }
  const offset = options.timezoneOffsetMinutes ?? 0;
  if (!Number.isInteger(offset) || Math.abs(offset) > 14 * 60) {
    throw new EngramError('CONFIG_ERROR', 'formation.timezoneOffsetMinutes must be an integer within ±840', {
      details: { field: 'formation.timezoneOffsetMinutes' },
    });
  }
  return {
    llm,
    extractor,
    consolidator,
    neighbours: positive(options.neighbours, 5, 'neighbours'),
    worker,
    retry,
    maxBacklog: positive(options.maxBacklog, 10_000, 'maxBacklog'),
    captureQuietMs: positive(options.captureQuietMs, 30_000, 'captureQuietMs', false),
    timezoneOffsetMinutes: offset,
    formedTurns,
  };
}

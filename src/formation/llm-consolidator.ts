import { z } from 'zod';
import type { ChatModel } from '../llm/chat-model.js';
import { extractJsonObject } from '../llm/extract-json.js';
import { isEngramError } from '../model/errors.js';
import {
  buildConsolidationPrompt,
  CONSOLIDATION_PROMPT_VERSION,
  type ConsolidationPrompt,
} from './consolidation-prompt.js';
import {
  CONSOLIDATION_ACTIONS,
  type ConsolidateOptions,
  type ConsolidationBatch,
  type ConsolidationDeps,
  type ConsolidationNote,
  type ConsolidationResult,
  type Consolidator,
  type Decision,
} from './consolidator.js';
import { FAILED_CALL, NO_USAGE, usageOf, type LlmUsage } from './llm-usage.js';
import { planOperations } from './plan-operations.js';
import { decideByRules, type RuleConsolidationOptions } from './rule-consolidator.js';

/** Options of {@link createLlmConsolidator}. */
export interface LlmConsolidatorOptions {
  model: ChatModel;
  /** Completion budget of the call. @default 1500 */
  maxCompletionTokens?: number | undefined;
  /** The fallback's thresholds (and embedder). */
  fallback?: RuleConsolidationOptions | undefined;
}

const AnswerSchema = z.object({ decisions: z.array(z.unknown()) });
const DecisionSchema = z.object({
  candidate: z.string(),
  action: z.preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), z.enum(CONSOLIDATION_ACTIONS)),
  target: z.string().nullish(),
  text: z.string().trim().max(2000).nullish(),
});

/** Reads the model's decisions, keeping only those that name a real candidate and an allowed target. */
function readDecisions(
  items: unknown[],
  prompt: ConsolidationPrompt,
): { decisions: Map<number, Decision>; notes: ConsolidationNote[] } {
  const decisions = new Map<number, Decision>();
  const notes: ConsolidationNote[] = [];
  for (const item of items) {
    const parsed = DecisionSchema.safeParse(item);
    if (!parsed.success) {
      notes.push({
        candidate: null,
        problem: 'invalid-decision',
        detail: parsed.error.issues.map((i) => i.message).join('; '),
      });
      continue;
    }
    const { candidate: handle, action, target, text } = parsed.data;
    const index = prompt.candidates.get(handle.trim().replace(/^\[|\]$/g, ''));
    if (index === undefined) {
      notes.push({ candidate: null, problem: 'unknown-handle', detail: `candidate "${handle}" is not in the batch` });
      continue;
    }
    if (decisions.has(index)) {
      notes.push({
        candidate: index,
        problem: 'duplicate-decision',
        detail: `a second decision for ${handle} was ignored`,
      });
      continue;
    }
    const resolved = target ? prompt.allowed.get(index)?.get(target.trim().replace(/^\[|\]$/g, '')) : undefined;
    if (action !== 'ADD' && resolved === undefined) {
      notes.push({
        candidate: index,
        problem: 'unknown-handle',
        detail: `${action} target "${target ?? ''}" is not listed for ${handle}`,
      });
      continue;
    }
    decisions.set(index, {
      candidate: index,
      action,
      target: action === 'ADD' ? null : (resolved ?? null),
      text: action === 'UPDATE' && text ? text : null,
      decidedBy: 'llm',
      reason: 'model decision',
    });
  }
  return { decisions, notes };
}

async function askModel(
  options: LlmConsolidatorOptions,
  prompt: ConsolidationPrompt,
  signal: AbortSignal | undefined,
): Promise<{ items: unknown[] | null; usage: LlmUsage; failure: string | null }> {
  let usage: LlmUsage = { ...FAILED_CALL };
  try {
    const response = await options.model.chat({
      messages: prompt.messages,
      json: true,
      maxTokens: options.maxCompletionTokens ?? 1500,
      signal,
    });
    usage = usageOf(response);
    const shape = AnswerSchema.safeParse(extractJsonObject(response.text));
    if (!shape.success) return { items: null, usage, failure: 'the answer has no "decisions" array' };
    return { items: shape.data.decisions, usage, failure: null };
  } catch (error) {
    const code = isEngramError(error) ? error.code : 'INTERNAL';
    return { items: null, usage, failure: `${code}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * The LLM consolidator: ONE chat call decides a whole batch. No call is made when no candidate
 * has a neighbour (the rules then decide, at no cost). A decision the model leaves out, or one
 * naming a handle not listed for its candidate, falls back to the rules for that candidate; a
 * failed call (after the client's retries), an answer that is not JSON or has no decisions
 * falls back for all. Every fallback is a note; the consolidator itself never rejects for its LLM.
 */
export function createLlmConsolidator(deps: ConsolidationDeps, options: LlmConsolidatorOptions): Consolidator {
  const name = 'llm';
  const version = `${CONSOLIDATION_PROMPT_VERSION}+${options.model.id}`;
  return {
    name,
    version,
    async consolidate(
      batch: ConsolidationBatch,
      consolidateOptions: ConsolidateOptions = {},
    ): Promise<ConsolidationResult> {
      const notes: ConsolidationNote[] = [];
      let usage: LlmUsage = { ...NO_USAGE };
      let fromModel = new Map<number, Decision>();
      if (batch.items.some((item) => item.neighbours.length > 0)) {
        const prompt = buildConsolidationPrompt(batch);
        const answer = await askModel(options, prompt, consolidateOptions.signal);
        usage = answer.usage;
        if (answer.items === null)
          notes.push({ candidate: null, problem: 'llm-failed', detail: answer.failure ?? 'no answer' });
        else {
          const read = readDecisions(answer.items, prompt);
          fromModel = read.decisions;
          notes.push(...read.notes);
        }
      }
      const needRules = batch.items.some((_item, i) => !fromModel.has(i));
      const rules = needRules ? await decideByRules(batch, options.fallback) : [];
      const decisions = batch.items.map((_item, i) => {
        const decided = fromModel.get(i);
        if (decided) return decided;
        if (
          usage.calls + usage.failedCalls > 0 &&
          notes.every((n) => n.candidate !== i && n.problem !== 'llm-failed')
        ) {
          notes.push({
            candidate: i,
            problem: 'missing-decision',
            detail: `no decision for c${i + 1}: decided by the rules`,
          });
        }
        return rules[i] as Decision;
      });
      const planned = planOperations(batch, decisions, deps);
      return {
        consolidator: { name, version },
        decisions,
        operations: planned.operations,
        notes: [...notes, ...planned.notes],
        usage,
      };
    },
  };
}

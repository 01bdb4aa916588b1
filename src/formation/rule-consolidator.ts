import type { Embedder } from '../embed/embedder.js';
import { cosine } from '../vector/cosine.js';
import type {
  ConsolidationBatch,
  ConsolidationDeps,
  ConsolidationResult,
  Consolidator,
  Decision,
  DecisionTarget,
} from './consolidator.js';
import { NO_USAGE } from './llm-usage.js';
import { normalizeTurnText } from './normalize-turn-text.js';
import { planOperations } from './plan-operations.js';
import { isCurrent } from './temporal.js';
import { contentOverlap } from './text-overlap.js';

/** Thresholds of the deterministic consolidation rules. */
export interface RuleConsolidationOptions {
  /** Embeds texts whose cosine the neighbour finder did not give (and candidates among themselves). @default none: text overlap alone */
  embedder?: Embedder | undefined;
  /** Near-duplicate: cosine at least this… @default 0.85 */
  duplicateCosine?: number | undefined;
  /** …and content-word overlap (Jaccard) at least this. @default 0.8 */
  duplicateOverlap?: number | undefined;
  /** Near-duplicate when no cosine is known: overlap at least this. @default 0.9 */
  textOnlyOverlap?: number | undefined;
}

interface Other {
  target: DecisionTarget;
  text: string;
  key: string | null;
  cosine: number | null;
}

function cosineOf(a: Float32Array | undefined, b: Float32Array | undefined): number | null {
  return a && b ? cosine(a, b) : null;
}

async function embedBatch(
  batch: ConsolidationBatch,
  embedder: Embedder | undefined,
): Promise<Map<string, Float32Array>> {
  const vectors = new Map<string, Float32Array>();
  if (!embedder) return vectors;
  const texts = new Set<string>();
  for (const item of batch.items) {
    texts.add(item.candidate.text);
    for (const n of item.neighbours) if (n.cosine === undefined) texts.add(n.memory.text);
  }
  const list = [...texts];
  const embedded = await embedder.embed(list);
  list.forEach((text, i) => vectors.set(text, embedded[i] as Float32Array));
  return vectors;
}

/**
 * The deterministic decisions, used when no LLM is configured and whenever its call fails:
 * near-duplicate (cosine and content-word overlap, or equal normalised text) → NOOP; same key
 * with a different value → SUPERSEDE; otherwise ADD. Earlier candidates of the batch count as
 * neighbours, so a fact said twice in one window is formed once and "moved to Berlin … now
 * Munich" chains. Only current neighbours are considered.
 */
export async function decideByRules(
  batch: ConsolidationBatch,
  options: RuleConsolidationOptions = {},
): Promise<Decision[]> {
  const dupCosine = options.duplicateCosine ?? 0.85;
  const dupOverlap = options.duplicateOverlap ?? 0.8;
  const textOnly = options.textOnlyOverlap ?? 0.9;
  const vectors = await embedBatch(batch, options.embedder);
  return batch.items.map((item, i) => {
    const c = item.candidate;
    const others: Other[] = item.neighbours
      .filter((n) => isCurrent(n.memory))
      .map((n) => ({
        target: { kind: 'memory', id: n.memory.id },
        text: n.memory.text,
        key: n.memory.key,
        cosine: n.cosine ?? cosineOf(vectors.get(c.text), vectors.get(n.memory.text)),
      }));
    batch.items.slice(0, i).forEach((earlier, index) => {
      const text = earlier.candidate.text;
      others.push({
        target: { kind: 'candidate', index },
        text,
        key: earlier.candidate.key,
        cosine: cosineOf(vectors.get(c.text), vectors.get(text)),
      });
    });
    const normal = normalizeTurnText(c.text);
    const duplicate = others.find((o) => {
      if (normalizeTurnText(o.text) === normal) return true;
      const overlap = contentOverlap(c.text, o.text);
      return o.cosine === null ? overlap >= textOnly : o.cosine >= dupCosine && overlap >= dupOverlap;
    });
    if (duplicate)
      return {
        candidate: i,
        action: 'NOOP',
        target: duplicate.target,
        text: null,
        decidedBy: 'rules',
        reason: 'near-duplicate',
      };
    const sameKey = c.key === null ? undefined : others.filter((o) => o.key === c.key).at(-1);
    if (sameKey)
      return {
        candidate: i,
        action: 'SUPERSEDE',
        target: sameKey.target,
        text: null,
        decidedBy: 'rules',
        reason: `same key ${c.key}`,
      };
    return { candidate: i, action: 'ADD', target: null, text: null, decidedBy: 'rules', reason: 'nothing similar' };
  });
}

/** A consolidator that only uses {@link decideByRules}: no LLM, no cost. */
export function createRuleConsolidator(deps: ConsolidationDeps, options: RuleConsolidationOptions = {}): Consolidator {
  return {
    name: 'rules',
    version: 'c1',
    async consolidate(batch: ConsolidationBatch): Promise<ConsolidationResult> {
      const decisions = await decideByRules(batch, options);
      const { operations, notes } = planOperations(batch, decisions, deps);
      return { consolidator: { name: 'rules', version: 'c1' }, decisions, operations, notes, usage: { ...NO_USAGE } };
    },
  };
}

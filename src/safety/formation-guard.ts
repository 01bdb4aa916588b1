import { isEngramError } from '../model/errors.js';
import type { FormationOp, SafetyReportPatch } from '../model/formation/operations.js';
import type { JsonObject } from '../model/json.js';
import type { SafetyPolicyPatch } from '../model/safety-policy-patch.js';
import type { MemoryType } from '../model/memory-type.js';
import { applyWriteSafety } from './apply-write-safety.js';
import { CleanStrings } from './clean-strings.js';
import { isCleanReport, safetyReportToJson, type SafetyReport } from './safety-report.js';
import type { WriteGuard } from './write-guard.js';

/** A turn about to be stored as an episode: its text is all the guard reads. */
interface TurnText {
  text: string;
}

/** What the guard did to a window's operations. */
export interface GuardedOperations {
  operations: FormationOp[];
  /**
   * Operations refused by the policy (`code`: SENSITIVE_DATA_REJECTED, INSTRUCTION_REJECTED) and
   * supersessions whose successor was refused (SUCCESSOR_DROPPED): dropped, never written.
   */
  dropped: Array<{ op: FormationOp['op']; id: string; code: string }>;
}

/** What the guard did to a window's candidates before consolidation. */
export interface GuardedCandidates<C> {
  /** The candidates the policy lets through, masked, in order. */
  candidates: C[];
  /** Candidates refused by the policy (`code`: SENSITIVE_DATA_REJECTED, INSTRUCTION_REJECTED): never consolidated. */
  dropped: Array<{ index: number; code: string }>;
}

/** The strings of a candidate fact that the guard masks (what a consolidation prompt and an embedding read). */
interface CandidateText {
  text: string;
  key: string | null;
  tags: string[];
  type: MemoryType;
}

function opId(op: FormationOp): string {
  return op.op === 'add' ? op.memory.id : op.id;
}

/**
 * The write guard where formation writes: the two seams of the formation pipeline. The turns of
 * `remember` / capture are masked before they are stored as episodes, embedded, or put in an
 * extraction prompt (so no LLM sees what was masked), refused like an `add` when the policy
 * rejects what they hold; a window's operations are masked before `writeFormedWindow` embeds and
 * applies them, and an operation the policy refuses is dropped from the window (a fact the LLM
 * formed cannot be sent back to the caller). The policy is the tenant's, as for every write.
 */
export class FormationGuard {
  constructor(private readonly guard: WriteGuard) {}

  /**
   * The turns with their text masked (order and every other field kept); the same array when
   * nothing changed.
   *
   * @throws EngramError('SENSITIVE_DATA_REJECTED' | 'INSTRUCTION_REJECTED') naming `messages[i].text`.
   */
  async turns<T extends TurnText>(turns: readonly T[], tenant: string, call?: SafetyPolicyPatch): Promise<T[]> {
    const policy = await this.guard.policy(tenant, call);
    if (!policy.enabled) return [...turns];
    return turns.map((turn, i) => {
      const { input } = applyWriteSafety({ text: turn.text }, policy, { field: `messages[${i}]` });
      return input.text === turn.text ? turn : { ...turn, text: input.text };
    });
  }

  /**
   * A window's candidate facts, as the extraction LLM proposed them, masked by the tenant's policy
   * before they reach the consolidation prompt, the neighbour search or the consolidator's
   * embeddings: nothing an LLM invented reaches a second LLM call or an embedding unmasked.
   * Masks already there (copied from masked turns) are left as they are. A candidate the policy
   * refuses is dropped, as its operation would be.
   */
  async candidates<C extends CandidateText>(candidates: readonly C[], tenant: string): Promise<GuardedCandidates<C>> {
    const policy = await this.guard.policy(tenant);
    if (!policy.enabled) return { candidates: [...candidates], dropped: [] };
    const out: GuardedCandidates<C> = { candidates: [], dropped: [] };
    const clean = new CleanStrings();
    candidates.forEach((candidate, index) => {
      try {
        const { input, changed } = applyWriteSafety(
          { text: candidate.text, key: candidate.key, tags: candidate.tags, type: candidate.type },
          policy,
          { field: `candidate ${index}`, clean, recogniseMasks: true },
        );
        out.candidates.push(
          changed ? { ...candidate, text: input.text, key: input.key ?? null, tags: input.tags ?? [] } : candidate,
        );
      } catch (error) {
        if (!isEngramError(error)) throw error;
        out.dropped.push({ index, code: error.code });
      }
    });
    return out;
  }

  /** A query formation recalls with (a candidate's text): masked as `recall` masks its query. */
  query(text: string, tenant: string): Promise<string> {
    return this.guard.query(text, tenant);
  }

  /**
   * A window's operations with every string they write masked, as `add` / `update` mask them: an
   * added memory's report in its metadata, an update's or new evidence's report in the operation
   * (`safety`), which the store merges into the memory's report in the window's transaction.
   */
  async operations(operations: readonly FormationOp[], tenant: string): Promise<GuardedOperations> {
    const policy = await this.guard.policy(tenant);
    const out: GuardedOperations = { operations: [], dropped: [] };
    const droppedAdds = new Set<string>();
    for (const op of operations) {
      // A memory's supersession goes with its successor: never end a fact for one not written.
      if (op.op === 'supersede' && droppedAdds.has(op.successorId)) {
        out.dropped.push({ op: op.op, id: op.id, code: 'SUCCESSOR_DROPPED' });
        continue;
      }
      try {
        out.operations.push(policy.enabled ? guardOp(op, this.guard, policy) : op);
      } catch (error) {
        if (!isEngramError(error)) throw error;
        out.dropped.push({ op: op.op, id: opId(op), code: error.code });
        if (op.op === 'add') droppedAdds.add(op.memory.id);
      }
    }
    return out;
  }
}

/** The report on what an operation writes, for the store to merge into the memory's own. */
function reportPatch(report: SafetyReport, replaces: string[]): SafetyReportPatch {
  const json = safetyReportToJson(report);
  return { replaces, items: json.items as JsonObject[], flags: json.flags as JsonObject[] };
}

function guardOp(op: FormationOp, guard: WriteGuard, policy: Parameters<WriteGuard['inputs']>[1]): FormationOp {
  switch (op.op) {
    case 'add': {
      // Its text is a candidate's, masked before consolidation: those masks count in its report.
      const [memory] = guard.inputs([op.memory], policy, 'operations', { recogniseMasks: true });
      return memory === op.memory ? op : { ...op, memory: memory as typeof op.memory };
    }
    case 'update': {
      const { input, report } = applyWriteSafety({ ...op.patch, sources: op.addSources }, policy, {
        field: `update ${op.id}`,
        recogniseMasks: true,
      });
      const patch = { ...op.patch, text: input.text, key: input.key, tags: input.tags as string[] | undefined };
      for (const name of ['text', 'key', 'tags'] as const) if (op.patch[name] === undefined) delete patch[name];
      // What the replaced fields held before is no longer there: their entries go, the new ones come.
      const replaces = (['text', 'key', 'tags'] as const).filter((name) => op.patch[name] !== undefined);
      return { ...op, patch, addSources: [...(input.sources ?? [])], safety: reportPatch(report, replaces) };
    }
    case 'attach-evidence': {
      const { input, report } = applyWriteSafety({ sources: op.addSources }, policy, { field: `evidence ${op.id}` });
      if (input.sources === op.addSources && isCleanReport(report)) return op;
      return { ...op, addSources: [...(input.sources ?? [])], safety: reportPatch(report, []) };
    }
    default:
      return op;
  }
}

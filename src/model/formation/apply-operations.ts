import { EngramError } from '../errors.js';
import type { EmbeddingInfo, Memory, MemorySource } from '../memory.js';
import type { ApplyContext } from './formation-store.js';
import type { HistoryEvent, HistoryEventKind, MemorySnapshot } from './history.js';
import type { FormationOp, NewMemory } from './operations.js';
import { applySafetyReportPatch, type SafetyReportPatch } from './safety-report-patch.js';
import { isCurrent, validFromOf, type Validity } from './temporal.js';

/** A memory with every validity field, as a phase-2 store holds it. */
export type StoredMemory = Memory & Validity;

function snapshot(m: StoredMemory): MemorySnapshot {
  return structuredClone({
    text: m.text,
    type: m.type,
    key: m.key,
    tags: m.tags,
    status: m.status,
    sources: m.sources,
    metadata: m.metadata,
    statedAt: m.statedAt,
    validFrom: m.validFrom,
    validTo: m.validTo,
    supersededBy: m.supersededBy,
    version: m.version,
    embedding: m.embedding,
  });
}

function conflict(message: string, id: string): never {
  throw new EngramError('CONFLICT', message, { details: { id }, isRetryable: true });
}

function mergeSources(old: MemorySource[], added: MemorySource[]): MemorySource[] {
  const seen = new Set(old.map((s) => `${s.type}\u0000${s.id ?? ''}`));
  return [...old, ...added.filter((s) => !seen.has(`${s.type}\u0000${s.id ?? ''}`))];
}

/** The memory's sources with `added` merged in, and its metadata with the guard's report for what the operation wrote. */
function withEvidence(
  before: StoredMemory,
  added: MemorySource[],
  safety: SafetyReportPatch | undefined,
): Pick<StoredMemory, 'sources' | 'metadata'> {
  const sources = mergeSources(before.sources, added);
  if (safety === undefined) return { sources, metadata: before.metadata };
  const kept = sources.slice(before.sources.length);
  const metadata = applySafetyReportPatch(before.metadata, safety, (j) => {
    const at = kept.indexOf(added[j] as MemorySource);
    return at === -1 ? null : before.sources.length + at;
  });
  return { sources, metadata };
}

function created(memory: NewMemory, context: ApplyContext): StoredMemory {
  return {
    ...structuredClone(memory),
    level: null,
    summary: null,
    background: null,
    scope: context.scope,
    createdAt: context.at,
    updatedAt: context.at,
    status: 'activated',
    usage: { count: 0, lastUsedAt: null },
    embedding: null,
    version: 1,
  };
}

/** The target of a change: present, current, at the version the decision saw. */
function target(state: Map<string, StoredMemory>, id: string, baseVersion: number | null): StoredMemory {
  const memory = state.get(id);
  if (!memory) conflict(`memory ${id} does not exist`, id);
  if (!isCurrent(memory)) conflict(`memory ${id} is no longer current`, id);
  if (baseVersion !== null && memory.version !== baseVersion)
    conflict(`memory ${id} is at version ${memory.version}, not ${baseVersion}`, id);
  return memory;
}

function applyOne(
  state: Map<string, StoredMemory>,
  op: FormationOp,
  context: ApplyContext,
  embeddings: ReadonlyMap<string, { embedding: EmbeddingInfo }>,
): { kind: HistoryEventKind; before: StoredMemory | null; after: StoredMemory } {
  if (op.op === 'add') {
    if (state.has(op.memory.id)) conflict(`memory ${op.memory.id} already exists`, op.memory.id);
    const after = { ...created(op.memory, context), embedding: embeddings.get(op.memory.id)?.embedding ?? null };
    if (after.validTo !== null && Date.parse(after.validTo) < Date.parse(validFromOf(after))) {
      throw new EngramError('INVALID_INPUT', `memory ${after.id} would end before it starts`, {
        details: { id: after.id },
      });
    }
    return { kind: 'created', before: null, after };
  }
  if (op.op === 'attach-evidence') {
    const before = target(state, op.id, null);
    return {
      kind: 'confirmed',
      before,
      after: { ...before, ...withEvidence(before, op.addSources, op.safety), updatedAt: context.at },
    };
  }
  const before = target(state, op.id, op.baseVersion);
  if (op.op === 'update') {
    const patch = Object.fromEntries(Object.entries(op.patch).filter(([, v]) => v !== undefined));
    const evidence = withEvidence(before, op.addSources, op.safety);
    const embedding = embeddings.get(op.id)?.embedding ?? before.embedding;
    return {
      kind: 'updated',
      before,
      after: { ...before, ...patch, ...evidence, embedding, version: before.version + 1, updatedAt: context.at },
    };
  }
  const successor = state.get(op.successorId);
  if (!successor) conflict(`successor ${op.successorId} of ${op.id} does not exist`, op.successorId);
  if (Date.parse(op.validTo) < Date.parse(validFromOf(before))) {
    throw new EngramError('INVALID_INPUT', `memory ${op.id} would end before it starts`, { details: { id: op.id } });
  }
  const after = {
    ...before,
    validTo: op.validTo,
    supersededBy: op.successorId,
    version: before.version + 1,
    updatedAt: context.at,
  };
  return { kind: 'superseded', before, after };
}

/**
 * The reference semantics of a window's operations, in memory: what every store's
 * `completeWindow` must do, and the oracle of its conformance suite. Applies `operations` in
 * order to a copy of `state` (one tenant's memories by id) and returns the new state and one
 * history event per change; on any refusal (`CONFLICT`, `INVALID_INPUT`) it throws and `state`
 * is untouched: all or nothing. Nothing is ever removed. `embeddings` (by memory id) are the
 * embedding spaces of the vectors given for added and re-texted memories: an added memory
 * without one has none, an updated one keeps its own.
 */
export function applyOperations(
  state: ReadonlyMap<string, StoredMemory>,
  operations: FormationOp[],
  context: ApplyContext,
  newId: () => string,
  embeddings: ReadonlyMap<string, { embedding: EmbeddingInfo }> = new Map(),
): { state: Map<string, StoredMemory>; history: HistoryEvent[] } {
  const next = new Map(state);
  const history: HistoryEvent[] = [];
  for (const op of operations) {
    const { kind, before, after } = applyOne(next, op, context, embeddings);
    next.set(after.id, after);
    history.push({
      id: newId(),
      tenant: context.tenant,
      memoryId: after.id,
      kind,
      at: context.at,
      before: before ? snapshot(before) : null,
      after: snapshot(after),
      cause: context.cause,
      caller: context.caller,
      sourceTurnIds: op.sourceTurnIds,
    });
  }
  return { state: next, history };
}

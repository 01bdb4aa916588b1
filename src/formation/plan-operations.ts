import type { MemorySource } from '../model/memory.js';
import type { Candidate } from './candidate.js';
import type { ConsolidationBatch, ConsolidationDeps, ConsolidationNote, Decision } from './consolidator.js';
import type { FormationOp, NewMemory } from './operations.js';
import { validFromOf } from './temporal.js';

/** What the batch knows of a memory while it builds operations. */
interface View {
  validFrom: string;
  version: number | null;
  tags: string[];
  /** Its successor when an earlier decision of this batch superseded it. */
  successor: string | null;
}

function chatSources(candidate: Candidate): MemorySource[] {
  return candidate.sourceTurnIds.map((id) => ({ type: 'chat', id }));
}

function newMemory(candidate: Candidate, id: string, validTo: string | null, supersededBy: string | null): NewMemory {
  const by = candidate.extractedBy;
  return {
    id,
    text: candidate.text,
    type: candidate.type,
    key: candidate.key,
    tags: candidate.tags,
    sources: chatSources(candidate),
    metadata: {
      formation: {
        extractor: `${by.name}@${by.version}`,
        method: by.method,
        kind: candidate.kind,
        confidence: candidate.confidence,
        when: candidate.when?.label ?? null,
      },
      ...(candidate.speaker ? { speaker: candidate.speaker } : {}),
    },
    statedAt: candidate.statedAt,
    validFrom: candidate.validFrom,
    validTo,
    supersededBy,
  };
}

/**
 * Turns one decision per candidate into the operations of the batch, in candidate order. An
 * operation aimed at a memory an earlier decision of the batch superseded goes to its successor;
 * an aim at a later candidate, or one the batch does not know, becomes an ADD with a note. A
 * SUPERSEDE by a candidate older than its target (a conversation formed late) adds the
 * candidate as already ended (`validTo` = the target's start, `supersededBy` = the target).
 */
export function planOperations(
  batch: ConsolidationBatch,
  decisions: Decision[],
  deps: ConsolidationDeps,
): { operations: FormationOp[]; notes: ConsolidationNote[] } {
  const views = new Map<string, View>();
  for (const item of batch.items) {
    for (const { memory } of item.neighbours) {
      views.set(memory.id, {
        validFrom: validFromOf(memory),
        version: memory.version ?? null,
        tags: memory.tags,
        successor: null,
      });
    }
  }
  const became = new Map<number, string>();
  const operations: FormationOp[] = [];
  const notes: ConsolidationNote[] = [];
  const add = (i: number, c: Candidate, validTo: string | null = null, supersededBy: string | null = null): string => {
    const id = deps.newId();
    operations.push({
      op: 'add',
      candidate: i,
      sourceTurnIds: c.sourceTurnIds,
      memory: newMemory(c, id, validTo, supersededBy),
    });
    views.set(id, { validFrom: c.validFrom, version: 1, tags: c.tags, successor: null });
    return id;
  };
  for (const decision of [...decisions].sort((a, b) => a.candidate - b.candidate)) {
    const i = decision.candidate;
    const c = batch.items[i]?.candidate;
    if (!c) continue;
    let id: string | undefined;
    if (decision.target?.kind === 'memory') id = decision.target.id;
    else if (decision.target?.kind === 'candidate' && decision.target.index < i) id = became.get(decision.target.index);
    while (id !== undefined && views.get(id)?.successor) id = views.get(id)?.successor ?? undefined;
    const view = id === undefined ? undefined : views.get(id);
    if (decision.action === 'ADD' || id === undefined || view === undefined) {
      if (decision.action !== 'ADD')
        notes.push({
          candidate: i,
          problem: 'invalid-decision',
          detail: `${decision.action} without a known target: added`,
        });
      became.set(i, add(i, c));
      continue;
    }
    became.set(i, id);
    const base = { candidate: i, sourceTurnIds: c.sourceTurnIds };
    if (decision.action === 'NOOP') {
      operations.push({ ...base, op: 'attach-evidence', id, addSources: chatSources(c), confirmedAt: c.statedAt });
    } else if (decision.action === 'UPDATE') {
      const tags = [...new Set([...view.tags, ...c.tags])];
      const patch = { text: decision.text ?? c.text, tags, ...(c.key !== null ? { key: c.key } : {}) };
      operations.push({ ...base, op: 'update', id, baseVersion: view.version, patch, addSources: chatSources(c) });
      view.tags = tags;
      if (view.version !== null) view.version += 1;
    } else if (Date.parse(c.validFrom) < Date.parse(view.validFrom)) {
      became.set(i, add(i, c, view.validFrom, id));
    } else {
      const successorId = add(i, c);
      operations.push({ ...base, op: 'supersede', id, baseVersion: view.version, successorId, validTo: c.validFrom });
      view.successor = successorId;
      if (view.version !== null) view.version += 1;
      became.set(i, successorId);
    }
  }
  return { operations, notes };
}

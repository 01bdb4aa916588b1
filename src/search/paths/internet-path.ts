import type { Embedder } from '../../embed/embedder.js';
import type { Memory } from '../../model/memory.js';
import type { WebSearchProvider } from '../internet/web-result.js';
import { webResultToMemory } from '../internet/web-to-memory.js';
import { maxCosine } from '../../vector/max-cosine.js';
import type { PathInputs } from './path-inputs.js';
import { rankCandidates } from './rank-candidates.js';
import type { SearchCandidate } from './search-candidate.js';

/** What the internet path needs besides the path inputs. */
export interface WebPath {
  providers: readonly WebSearchProvider[];
  /** Embeds the web results so they are scored like stored memories. */
  embedder: Embedder;
  /** Stamps the web items' `createdAt`. */
  clock: () => Date;
}

/**
 * The internet path: web results become OuterMemory items that are embedded in one batch, scored
 * by their best cosine with the query vectors and ranked like a local path's candidates.
 */
export async function runInternetPath(
  web: WebPath,
  k: number,
  inputs: PathInputs,
  degraded: Record<string, string>,
): Promise<SearchCandidate[]> {
  const memories = await fetchWebMemories(web, k, inputs, degraded);
  if (memories.length === 0) return [];
  const vectors = await web.embedder.embed(
    memories.map((m) => m.text),
    { signal: inputs.signal, role: 'document' },
  );
  const found = memories.map((memory, i) => ({
    memory,
    channels: { internet: 1 },
    cosine: maxCosine(vectors[i] as Float32Array, inputs.queryVectors),
  }));
  return rankCandidates(inputs, 'internet', found, k);
}

/**
 * Asks every provider in parallel for `2·k` results; a provider that fails is recorded in
 * `degraded` as `internet.{name}` and the others still count. The first item of each id is kept.
 */
async function fetchWebMemories(
  web: WebPath,
  k: number,
  inputs: PathInputs,
  degraded: Record<string, string>,
): Promise<Memory[]> {
  const { providers } = web;
  const settled = await Promise.allSettled(
    providers.map((p) => p.search({ query: inputs.goal.rephrasedQuery, limit: 2 * k, signal: inputs.signal })),
  );
  const at = web.clock().toISOString();
  const byId = new Map<string, Memory>();
  settled.forEach((s, i) => {
    if (s.status === 'rejected') {
      degraded[`internet.${providers[i]?.name ?? i}`] = s.reason instanceof Error ? s.reason.message : String(s.reason);
      return;
    }
    for (const r of s.value) {
      const m = webResultToMemory(r, inputs.scope, at);
      if (!byId.has(m.id)) byId.set(m.id, m);
    }
  });
  return [...byId.values()];
}

import type { Memory } from '../../model/memory.js';

/**
 * How a memory becomes the document(s) a cross-encoder scores (the multi-path
 * searcher's reranker strategies):
 * - `memory`: the memory text;
 * - `single-turn`: the memory's chat sources paired into user/assistant turns (one document per
 *   pair, the memory's score is the best pair's), falling back to the text;
 * - `background`: the memory text followed by its background;
 * - `doc-source`: the memory text followed by its document / file / web source contents.
 */
export type DocumentStrategy = 'memory' | 'single-turn' | 'background' | 'doc-source';

export const DOCUMENT_STRATEGIES: readonly DocumentStrategy[] = ['memory', 'single-turn', 'background', 'doc-source'];

/** Longest document sent, in characters. @default 4000 */
export const MAX_DOCUMENT_CHARS = 4_000;

function clip(text: string): string {
  return text.length > MAX_DOCUMENT_CHARS ? text.slice(0, MAX_DOCUMENT_CHARS) : text;
}

/** The documents of one memory under a strategy (never empty). */
export function rerankDocuments(memory: Memory, strategy: DocumentStrategy): string[] {
  switch (strategy) {
    case 'memory':
      return [clip(memory.text)];
    case 'background':
      return [clip(memory.background ? `${memory.text}\n${memory.background}` : memory.text)];
    case 'doc-source': {
      const parts = memory.sources
        .filter((s) => (s.type === 'doc' || s.type === 'file' || s.type === 'web') && (s.content || s.title))
        .map((s) => [s.title, s.content].filter(Boolean).join(': '));
      return [clip([memory.text, ...parts].join('\n'))];
    }
    case 'single-turn': {
      const turns = memory.sources.filter((s) => s.type === 'chat' && s.content);
      const docs: string[] = [];
      for (let i = 0; i < turns.length; i++) {
        const turn = turns[i];
        if (!turn?.content) continue;
        const next = turns[i + 1];
        if (turn.role === 'user' && next?.role === 'assistant' && next.content) {
          docs.push(clip(`user: ${turn.content}\nassistant: ${next.content}`));
          i++;
        } else docs.push(clip(`${turn.role ?? 'speaker'}: ${turn.content}`));
      }
      return docs.length > 0 ? docs : [clip(memory.text)];
    }
  }
}

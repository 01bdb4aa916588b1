import type { VocabEntry } from './use-lite-weights.js';

const SEPARATOR = '\u2581';
const RESERVED_SYMBOLS = 6;

interface TrieNode {
  children: Map<string, TrieNode>;
  /** Vocabulary index when a piece ends here, else -1. */
  index: number;
  score: number;
  /** Length of the piece in symbols (code points). */
  symbols: number;
}

const newNode = (): TrieNode => ({ children: new Map(), index: -1, score: 0, symbols: 0 });

/**
 * The USE-lite sentencepiece tokenizer, token-for-token identical to the reference runtime
 * (`@energetic-ai/embeddings`, itself a port of tfjs-models' USE tokenizer), including its
 * quirks: NFKC, spaces (only U+0020) become '▁' with one leading '▁', Viterbi over piece
 * scores where an unset best (0) always loses and ties go to the later piece, unknown symbols
 * map to id 0 and runs of them collapse into one. It is only faster: no array slicing per
 * position.
 */
export class UseLiteTokenizer {
  private readonly root = newNode();
  /** UTF-16 length of each piece, used by the back-tracking step exactly as the reference does. */
  private readonly pieceLength: number[];

  constructor(vocabulary: VocabEntry[]) {
    this.pieceLength = vocabulary.map(([piece]) => piece.length);
    for (let i = RESERVED_SYMBOLS; i < vocabulary.length; i++) {
      const entry = vocabulary[i];
      if (!entry) continue;
      const [piece, score] = entry;
      let node = this.root;
      let count = 0;
      for (const symbol of piece) {
        let child = node.children.get(symbol);
        if (!child) {
          child = newNode();
          node.children.set(symbol, child);
        }
        node = child;
        count++;
      }
      if (count === 0) continue;
      node.index = i;
      node.score = score;
      node.symbols = count;
    }
  }

  /** Token ids of one text. */
  encode(text: string): number[] {
    const normalized = text.normalize('NFKC');
    const input = normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized;
    const symbols = Array.from(input);
    const n = symbols.length;
    // edges[end] lists (start, index, score) in ascending start order, as the reference visits them.
    const edgeStart: number[][] = Array.from({ length: n + 1 }, () => []);
    const edgeIndex: number[][] = Array.from({ length: n + 1 }, () => []);
    const edgeScore: number[][] = Array.from({ length: n + 1 }, () => []);
    for (let i = 0; i < n; i++) {
      let node = this.root.children.get(symbols[i] as string);
      let matched = false;
      for (let j = i; j < n && node; j++) {
        if (node.index >= 0) {
          const end = i + node.symbols;
          edgeStart[end]?.push(i);
          edgeIndex[end]?.push(node.index);
          edgeScore[end]?.push(node.score);
          matched = true;
        }
        node = j + 1 < n ? node.children.get(symbols[j + 1] as string) : undefined;
      }
      if (!matched) {
        edgeStart[i + 1]?.push(i);
        edgeIndex[i + 1]?.push(0);
        edgeScore[i + 1]?.push(0);
      }
    }
    const best = new Float64Array(n + 1);
    const words = new Int32Array(n + 1);
    for (let end = 0; end <= n; end++) {
      const starts = edgeStart[end] ?? [];
      const indices = edgeIndex[end] ?? [];
      const scores = edgeScore[end] ?? [];
      for (let e = 0; e < starts.length; e++) {
        const score = (scores[e] ?? 0) + (best[starts[e] ?? 0] ?? 0);
        if (best[end] === 0 || score >= (best[end] ?? 0)) {
          best[end] = score;
          words[end] = indices[e] ?? 0;
        }
      }
    }
    const reversed: number[] = [];
    let iter = n;
    while (iter > 0) {
      const id = words[iter] ?? 0;
      reversed.push(id);
      iter -= this.pieceLength[id] ?? 1;
    }
    const merged: number[] = [];
    let previousUnknown = false;
    for (const id of reversed) {
      if (!(previousUnknown && id === 0)) merged.push(id);
      previousUnknown = id === 0;
    }
    return merged.reverse();
  }
}

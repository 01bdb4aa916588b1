import type { Embedder } from '../../src/embed/embedder.js';

/**
 * A small deterministic embedder for tests: hashed bag of words (and character trigrams),
 * L2-normalised. A real implementation of the Embedder contract, not a mock: similar texts get
 * similar vectors, and the same text always gets the same vector.
 */
export class HashedEmbedder implements Embedder {
  readonly model: string;
  readonly dim: number;
  /** Number of texts embedded so far. */
  calls = 0;

  constructor(options: { dim?: number; model?: string } = {}) {
    this.dim = options.dim ?? 64;
    this.model = options.model ?? `hashed-bow-${this.dim}`;
  }

  private static hash(token: string): number {
    let h = 0x811c9dc5;
    for (let i = 0; i < token.length; i++) {
      h ^= token.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h;
  }

  private add(vector: Float32Array, token: string, weight: number): void {
    const h = HashedEmbedder.hash(token);
    vector[h % this.dim] = (vector[h % this.dim] as number) + ((h >>> 16) & 1 ? weight : -weight);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += texts.length;
    return texts.map((text) => {
      const vector = new Float32Array(this.dim);
      const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      for (const word of words) {
        this.add(vector, `w:${word}`, 1);
        for (let i = 0; i + 3 <= word.length; i++) this.add(vector, `t:${word.slice(i, i + 3)}`, 0.3);
      }
      let norm = 0;
      for (const v of vector) norm += v * v;
      if (norm === 0) vector[0] = 1;
      else for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) / Math.sqrt(norm);
      return vector;
    });
  }
}

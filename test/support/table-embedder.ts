import { createHash } from 'node:crypto';
import type { Embedder } from '../../src/embed/embedder.js';

/**
 * An embedder for tests that need exact control over geometry: texts listed in `table` get
 * those vectors; any other text gets a pseudo-random unit vector seeded by its SHA-256, so
 * cosines are continuous (no ties) and stable across runs.
 */
export function createTableEmbedder(options: {
  dim?: number;
  model?: string;
  table?: Map<string, number[]>;
}): Embedder {
  const dim = options.dim ?? 32;
  const table = options.table ?? new Map<string, number[]>();
  return {
    model: options.model ?? `table-${dim}`,
    dim,
    async embed(texts: string[]): Promise<Float32Array[]> {
      return texts.map((text) => {
        const fixed = table.get(text);
        if (fixed) return Float32Array.from(fixed);
        const digest = createHash('sha256').update(text).digest();
        let state = digest.readUInt32LE(0) || 1;
        const v = new Float32Array(dim);
        for (let i = 0; i < dim; i++) {
          state ^= state << 13;
          state ^= state >>> 17;
          state ^= state << 5;
          v[i] = ((state >>> 0) / 2 ** 32) * 2 - 1;
        }
        return v;
      });
    },
  };
}

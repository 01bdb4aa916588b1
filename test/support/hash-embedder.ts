import { createHash } from 'node:crypto';
import type { Embedder } from '../../src/embed/embedder.js';
import { unicodeTokenize } from '../../src/text/tokenizer.js';

/**
 * A deterministic bag-of-words embedder for tests: each token hashes to a few signed dimensions.
 * Texts sharing words get high cosine; it is a real Embedder (no network, no weights), used
 * where a test needs predictable vectors rather than the offline model.
 */
export function createHashEmbedder(options: { dim?: number; model?: string } = {}): Embedder & { calls: number } {
  const dim = options.dim ?? 64;
  const embedder = {
    model: options.model ?? `hash-bow-${dim}`,
    dim,
    calls: 0,
    async embed(texts: string[]): Promise<Float32Array[]> {
      embedder.calls += 1;
      return texts.map((text) => {
        const v = new Float32Array(dim);
        for (const token of unicodeTokenize(text)) {
          const h = createHash('sha256').update(token).digest();
          for (let j = 0; j < 3; j++) {
            const index = h.readUInt16LE(j * 2) % dim;
            v[index] = (v[index] as number) + ((h[8 + j] as number) & 1 ? 1 : -1);
          }
        }
        return v;
      });
    },
  };
  return embedder;
}

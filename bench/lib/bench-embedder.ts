import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import type { Embedder } from '../../src/embed/embedder.js';
import { createLocalEmbedder } from '../../src/embed/local/local-embedder.js';

/** Where the bench keeps its embedding cache (gitignored). */
export const BENCH_EMBEDDING_CACHE = new URL('../.cache/embeddings.db', import.meta.url).pathname;

/** The default embedder, uncached (for timings that must include embedding). */
export function openRawEmbedder(): Embedder {
  return createLocalEmbedder();
}

/**
 * TEMPORARY until src/embed lands `withCache()`: the default embedder behind a JSON file cache.
 */
export async function openBenchEmbedder(
  cachePath: string = BENCH_EMBEDDING_CACHE.replace(/\.db$/, '.json'),
): Promise<Embedder> {
  const inner = createLocalEmbedder();
  const cache = new Map<string, string>();
  if (existsSync(cachePath)) {
    for (const [k, v] of Object.entries(JSON.parse(readFileSync(cachePath, 'utf8')) as Record<string, string>))
      cache.set(k, v);
  }
  const key = (t: string): string => createHash('sha256').update(`use-lite\0${t}`).digest('hex');
  return {
    model: inner.model,
    dim: inner.dim,
    async embed(texts) {
      const out: Array<Float32Array | undefined> = texts.map((t) => {
        const hit = cache.get(key(t));
        return hit === undefined ? undefined : new Float32Array(new Uint8Array(Buffer.from(hit, 'base64')).buffer);
      });
      const missing = texts.map((t, i) => [t, i] as const).filter(([, i]) => out[i] === undefined);
      if (missing.length > 0) {
        const vecs = await inner.embed(missing.map(([t]) => t));
        missing.forEach(([t, i], j) => {
          const v = vecs[j] as Float32Array;
          out[i] = v;
          cache.set(key(t), Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64'));
        });
        mkdirSync(dirname(cachePath), { recursive: true });
        writeFileSync(cachePath, JSON.stringify(Object.fromEntries(cache)));
      }
      return out as Float32Array[];
    },
    close: () => inner.close?.() ?? Promise.resolve(),
  };
}

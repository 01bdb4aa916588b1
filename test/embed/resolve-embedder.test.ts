import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { availableEmbedders, registerEmbedderProvider, resolveEmbedder } from '../../src/embed/resolve-embedder.js';
import { isEngramError } from '../../src/model/errors.js';
import { EmbeddingServer, ok } from './embedding-server.js';

const server = new EmbeddingServer();
beforeAll(() => server.start());
afterAll(() => server.stop());

async function configError(name: string, options: Parameters<typeof resolveEmbedder>[1] = {}): Promise<string> {
  try {
    await resolveEmbedder(name, options);
  } catch (error) {
    if (isEngramError(error, 'CONFIG_ERROR')) return error.message;
    throw error;
  }
  throw new Error(`expected CONFIG_ERROR for ${name}`);
}

describe('resolveEmbedder', () => {
  it('lists what is available for unknown or incomplete names', async () => {
    for (const name of ['word2vec', 'openai:', 'use-lite:big', 'ollama', '']) {
      const message = await configError(name, { env: {} });
      expect(message).toContain('use-lite');
      expect(message).toContain('openai:<model>');
      expect(message).toContain('ollama:<model>');
      expect(message).toContain('http:<model>');
    }
    expect(availableEmbedders()).toEqual(expect.arrayContaining(['use-lite', 'openai:<model>']));
  });

  it("resolves 'use-lite' lazily to the 512-d local embedder", async () => {
    const e = await resolveEmbedder('use-lite');
    expect(e.model).toBe('use-lite');
    expect(e.dim).toBe(512);
    await e.close?.();
  });

  it("resolves 'http:<model>' against the configured server", async () => {
    server.script(ok(6));
    const e = await resolveEmbedder('http:mini', { baseURL: server.baseURL, env: {} });
    expect(e.model).toBe('http:mini');
    expect(await e.embed(['x'])).toHaveLength(1);
    expect(server.requests[0]?.body.model).toBe('mini');
    expect(await configError('http:mini', { env: {} })).toContain('ENGRAM_EMBEDDER_BASE_URL');
  });

  it("reads ENGRAM_EMBEDDER_BASE_URL / ENGRAM_EMBEDDER_API_KEY for 'http:'", async () => {
    server.script(ok(6));
    const e = await resolveEmbedder('http:mini', {
      env: { ENGRAM_EMBEDDER_BASE_URL: server.baseURL, ENGRAM_EMBEDDER_API_KEY: 'k1' },
    });
    await e.embed(['x']);
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer k1');
  });

  it("resolves 'ollama:<model>' through OLLAMA_HOST's /v1", async () => {
    server.script(ok(6));
    const host = server.baseURL.replace(/^http:\/\//, '').replace(/\/v1$/, '');
    const e = await resolveEmbedder('ollama:nomic-embed-text', { env: { OLLAMA_HOST: host } });
    expect(e.model).toBe('ollama:nomic-embed-text');
    await e.embed(['x']);
    expect(server.requests[0]?.url).toBe('/v1/embeddings');
    expect(server.requests[0]?.body.model).toBe('nomic-embed-text');
  });

  it("resolves 'openai:<model>' with a key and the known dimension", async () => {
    expect(await configError('openai:text-embedding-3-small', { env: {} })).toContain('OPENAI_API_KEY');
    server.script(ok(1536));
    const e = await resolveEmbedder('openai:text-embedding-3-small', {
      env: { OPENAI_API_KEY: 'sk-env', OPENAI_BASE_URL: server.baseURL },
    });
    expect(e.model).toBe('openai:text-embedding-3-small');
    expect(e.dim).toBe(1536);
    await e.embed(['x']);
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer sk-env');
    server.script(ok(8));
    await expect(e.embed(['y'])).rejects.toMatchObject({ code: 'EMBEDDER_ERROR' });
  });

  it('accepts registered providers', async () => {
    registerEmbedderProvider('const', async (model) => ({
      model: `const:${model}`,
      dim: 2,
      embed: async (texts: string[]) => texts.map(() => Float32Array.of(1, 0)),
    }));
    const e = await resolveEmbedder('const:one');
    expect(e.model).toBe('const:one');
    expect(availableEmbedders()).toContain('const:<model>');
  });

  it('imports no backend until one is used', async () => {
    // A fresh process: import the public index, resolve 'use-lite', then embed once, listing
    // the heavy CommonJS backends in the module cache after each step.
    const script = `
      import { createRequire } from 'node:module';
      const require = createRequire(import.meta.url);
      const heavy = /(onnxruntime-node|@energetic-ai[\\/]embeddings|libsql|@libsql)[\\/]/;
      const loaded = () => [...new Set(Object.keys(require.cache).map((k) => k.match(heavy)?.[1]).filter(Boolean))];
      const mod = await import(process.argv[1]);
      const afterImport = loaded();
      const e = await mod.resolveEmbedder('use-lite');
      const afterResolve = loaded();
      const vectors = await e.embed(['hello']);
      const afterEmbed = loaded();
      await e.close();
      console.log(JSON.stringify({ afterImport, afterResolve, afterEmbed, dim: vectors[0].length }));
    `;
    const index = fileURLToPath(new URL('../../src/embed/index.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, index],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)) },
    );
    const steps = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    // onnxruntime-node loads in the ONNX worker threads only, never in the main thread (its addon
    // corrupts the heap when a thread that loaded it exits before another loads it).
    expect(steps).toEqual({ afterImport: [], afterResolve: [], afterEmbed: [], dim: 512 });
  });
});

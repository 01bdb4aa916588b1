import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl, watchOutput } from '../support/child-output.js';
import { demoTopHit } from '../support/demo-recall.js';
import { HashedEmbedder } from '../support/hashed-embedder.js';
import { startLocalServer, type LocalHttpServer } from '../support/local-http-server.js';

const TSX = join(process.cwd(), 'node_modules', '.bin', 'tsx');
const BIN = join(process.cwd(), 'src', 'cli', 'bin.ts');

let dir: string;
let server: LocalHttpServer;
const embedders = new Map<string, HashedEmbedder>();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function engram(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      [BIN, '--store', join(dir, 'cli.db'), ...args],
      { env: { ...process.env, ENGRAM_EMBEDDER_BASE_URL: server.url, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engram-cli-'));
  // A real OpenAI-compatible embeddings endpoint; each model name gets its own dimension.
  server = await startLocalServer(async (request) => {
    const body = request.body as { model: string; input: string[] };
    const dim = body.model === 'model-b' ? 48 : 32;
    const embedder = embedders.get(body.model) ?? new HashedEmbedder({ dim, model: body.model });
    embedders.set(body.model, embedder);
    const vectors = await embedder.embed(body.input);
    return { json: { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: [...v] })) } };
  });
  const lines = [
    { text: 'User is allergic to peanuts', type: 'UserMemory', statedAt: '2026-05-01T09:12:00Z' },
    { text: 'User prefers spicy food', type: 'PreferenceMemory' },
    { text: 'User owns a Volvo V60', tags: ['car'] },
  ];
  await writeFile(join(dir, 'memories.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  await writeFile(join(dir, 'bad.jsonl'), '{"text":"fine"}\n{"text":""}\n{not json}\n');
  const locomo = [
    {
      sample_id: 'conv-x',
      conversation: {
        speaker_a: 'Ana',
        speaker_b: 'Ben',
        session_1_date_time: '1:56 pm on 8 May, 2023',
        session_1: [
          { speaker: 'Ana', dia_id: 'D1:1', text: 'I adopted a puppy named Biscuit!' },
          { speaker: 'Ben', dia_id: 'D1:2', text: 'Congrats, what breed is he?', img_url: [], blip_caption: 'a small dog' },
        ],
      },
      qa: [{ question: 'What is the puppy called?', answer: 'Biscuit', evidence: ['D1:1'], category: 4 }],
      observation: {},
      session_summary: {},
      event_summary: {},
    },
  ];
  await writeFile(join(dir, 'locomo.json'), JSON.stringify(locomo));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('engram CLI', { timeout: 180_000 }, () => {
  it('imports JSONL and answers a search as a table, as JSON and with --explain', async () => {
    const imported = await engram(['--embedder', 'http:model-a', '--user', 'u1', 'import', join(dir, 'memories.jsonl')]);
    // stderr is not a terminal here: progress comes as lines.
    expect(imported.stderr).toMatch(/^import 3\/3 \(100\.0%\) \d+\/s\n$/);
    expect(imported.stdout).toMatch(/imported 3 memories \(jsonl\)/);

    const table = await engram(['--embedder', 'http:model-a', '--user', 'u1', 'recall', 'peanuts allergy', '--threshold', '0']);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^#\s+score\s+type\s+stated\s+text/);
    expect(table.stdout).toContain('User is allergic to peanuts');

    const json = await engram(['--embedder', 'http:model-a', '--user', 'u1', '--json', 'recall', 'peanuts', '--threshold', '0']);
    const result = JSON.parse(json.stdout) as { hits: { memory: { text: string }; explanation: { channels: string[]; bm25: number } }[] };
    expect(result.hits[0]?.memory.text).toBe('User is allergic to peanuts');
    expect(result.hits[0]?.explanation.channels).toContain('lexical');
    expect(result.hits[0]?.explanation.bm25).toBe(1);

    const explain = await engram(['--embedder', 'http:model-a', '--user', 'u1', 'recall', 'peanuts', '--explain']);
    expect(explain.stdout).toMatch(/cosine\s+bm25\s+w_lex\s+channels/);
    expect(explain.stdout).toMatch(/timings: embed .* ms/);
  });

  it('searches every path with the searcher: modes, types, reranker, explain', async () => {
    const json = await engram(['--embedder', 'http:model-a', '--user', 'u1', '--json', 'search', 'peanuts', '--types', 'user,preference', '--reranker', 'noop']);
    expect(json.stderr).toBe('');
    const result = JSON.parse(json.stdout) as { hits: { memory: { text: string; type: string }; relevance: number }[]; plan: { mode: string; reranker: string } };
    expect(result.plan).toMatchObject({ mode: 'fast', reranker: 'noop' });
    expect(result.hits[0]?.memory.text).toBe('User is allergic to peanuts');
    expect(result.hits.every((h) => ['UserMemory', 'PreferenceMemory'].includes(h.memory.type))).toBe(true);
    const explained = await engram(['--embedder', 'http:model-a', '--user', 'u1', 'search', 'peanuts', '--mode', 'fine', '--explain']);
    // No LLM is configured: fine mode falls back to fast and says so.
    expect(explained.stdout).toMatch(/plan: mode (fast|fine)/);
    expect(explained.stdout).toMatch(/degraded: .*/);
    const bad = await engram(['--embedder', 'http:model-a', '--user', 'u1', 'search', 'peanuts', '--reranker', 'nope']);
    expect(bad.code).toBe(2);
  });

  it('keeps users apart: another user sees nothing', async () => {
    const other = await engram(['--embedder', 'http:model-a', '--user', 'u2', 'recall', 'peanuts']);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('No memories found in this scope.');
  });

  it('rejects a file with a bad line without storing any of it, and bad flags with stable codes', async () => {
    const bad = await engram(['--embedder', 'http:model-a', '--user', 'u3', 'import', join(dir, 'bad.jsonl')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error INVALID_INPUT: .*line 2/);
    const stats = await engram(['--embedder', 'http:model-a', '--user', 'u3', '--json', 'stats']);
    expect((JSON.parse(stats.stdout) as { total: number }).total).toBe(0);

    const limit = await engram(['--embedder', 'http:model-a', '--user', 'u1', 'recall', 'x', '--limit', '0']);
    expect(limit.code).toBe(2);
    expect(limit.stderr).toMatch(/^error INVALID_LIMIT/);
    const empty = await engram(['--embedder', 'http:model-a', '--user', 'u1', 'add', '  ']);
    expect(empty.stderr).toMatch(/^error INVALID_TEXT/);
  });

  it('imports LoCoMo turns with their session date and re-embeds a scope with a new model', async () => {
    const imported = await engram(['--embedder', 'http:model-a', 'import', join(dir, 'locomo.json')]);
    expect(imported.stdout).toMatch(/imported 2 memories \(locomo\)/);
    const found = await engram(['--embedder', 'http:model-a', '--user', 'conv-x', '--json', 'recall', 'puppy Biscuit', '--threshold', '0']);
    const hits = (JSON.parse(found.stdout) as { hits: { memory: { text: string; statedAt: string } }[] }).hits;
    expect(hits[0]?.memory.text).toBe('Ana: I adopted a puppy named Biscuit!');
    expect(hits[0]?.memory.statedAt).toBe('2023-05-08T13:56:00.000Z');
    expect(hits.map((h) => h.memory.text)).toContain('Ben: Congrats, what breed is he? (shares a photo: a small dog)');

    const mismatch = await engram(['--embedder', 'http:model-b', '--user', 'conv-x', 'recall', 'puppy']);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/^error MODEL_MISMATCH: .*http:model-a/);

    const reembed = await engram(['--embedder', 'http:model-b', '--user', 'conv-x', 'reembed', '--quiet']);
    expect(reembed.stdout).toContain('re-embedded 2 memories');
    const stats = await engram(['--embedder', 'http:model-b', '--user', 'conv-x', '--json', 'stats']);
    expect((JSON.parse(stats.stdout) as { models: { model: string; dim: number }[] }).models).toEqual([
      { model: 'http:model-b', dim: 48, count: 2 },
    ]);
    const after = await engram(['--embedder', 'http:model-b', '--user', 'conv-x', 'recall', 'puppy Biscuit']);
    expect(after.stdout).toContain('Ana: I adopted a puppy named Biscuit!');
  });

  it('runs the README demo on the offline default embedder', async () => {
    const demo = await engram(['demo'].slice(0), {});
    expect(demo.code).toBe(0);
    expect(demo.stdout).toMatch(/Imported 26 memories/);
    const insurance = demo.stdout.split('> When is my car insurance due?')[1] ?? '';
    expect(insurance.split('\n')[3]).toContain("User's car insurance renewal is due on 1 December");
    expect(demo.stdout).toContain('<engram_context>');
  });
});

describe('engram CLI: server, keys and moving data', { timeout: 180_000 }, () => {
  it('exports a tenant and restores it into another database, then migrates it', async () => {
    const added = await engram(['--embedder', 'http:model-a', '--user', 'mover', 'add', 'Moving day is on Friday']);
    expect(added.stdout).toMatch(/^added /);
    const out = join(dir, 'export.jsonl');
    const exported = await engram(['--embedder', 'http:model-a', 'export', '--out', out]);
    expect(exported.stderr).toMatch(/exported \d+ memories of tenant default/);
    const copy = join(dir, 'copy.db');
    const restored = await engram(['--store', copy, 'restore', out, '--quiet']);
    expect(restored.stdout).toMatch(/restored \d+ memories/);
    const count = Number(/exported (\d+)/.exec(exported.stderr)?.[1]);
    expect(count).toBeGreaterThan(0);
    expect(Number(/restored (\d+)/.exec(restored.stdout)?.[1])).toBe(count);
    const migrated = await engram(['--store', copy, 'migrate']);
    expect(migrated.stdout).toContain('sqlite schema is up to date');
    const again = await engram(['--store', copy, 'restore', out, '--quiet']);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error CONFLICT/);
  });

  it('creates, lists and revokes API keys without ever listing a secret', async () => {
    const dataDir = join(dir, 'server');
    const created = await engram(['--tenant', 'acme', '--json', 'keys', 'create', '--data-dir', dataDir, '--read-only', '--name', 'ci']);
    const key = JSON.parse(created.stdout) as { key: string; info: { id: string; access: string } };
    expect(key.key).toMatch(/^egk_/);
    expect(key.info.access).toBe('read');
    const listed = await engram(['--tenant', 'acme', 'keys', 'list', '--data-dir', dataDir]);
    expect(listed.stdout).toContain(key.info.id);
    expect(listed.stdout).not.toContain(key.key);
    const revoked = await engram(['keys', 'revoke', key.info.id, '--data-dir', dataDir]);
    expect(revoked.stdout).toContain(`revoked ${key.info.id}`);
    const twice = await engram(['keys', 'revoke', key.info.id, '--data-dir', dataDir]);
    expect(twice.stderr).toMatch(/^error NOT_FOUND/);
  });

  it('serve --demo imports samples, prints a key and a working request, and stops on SIGTERM', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(TSX, [BIN, 'serve', '--data-dir', join(dir, 'serve'), '--port', '0', '--demo'], {
      env: { ...process.env },
    });
    const output = watchOutput(child, 'engram serve --demo');
    // The key and the example request may arrive in separate chunks: wait for both.
    const key = (await output.printed(/ENGRAM_API_KEY=(egk_\S+)[\s\S]*curl -s -X POST/))[1];
    const url = await listeningUrl(output);
    expect(await demoTopHit(url, key)).toBe("User's car insurance renewal is due on 1 December");
    child.kill('SIGTERM');
    expect((await output.closed).code).toBe(0);
  });
});

describe('engram mcp', { timeout: 180_000 }, () => {
  it('serves the memory tools on stdio to the official MCP client', async () => {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const transport = new StdioClientTransport({
      command: TSX,
      args: [BIN, '--tenant', 'mcp-t', 'mcp', '--data-dir', join(dir, 'mcp')],
      env: { ...(process.env as Record<string, string>) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'engram-cli-test', version: '1.0.0' });
    await client.connect(transport);
    const tools = (await client.listTools()).tools.map((t) => t.name).sort();
    expect(tools).toEqual(['add_memory', 'delete_memory', 'list_memories', 'memory_history', 'remember', 'search_memories']);
    const added = await client.callTool({ name: 'add_memory', arguments: { text: 'Dana keeps bees on the roof', user: 'dana' } });
    expect(added.isError).not.toBe(true);
    const found = await client.callTool({ name: 'search_memories', arguments: { query: 'bees', user: 'dana' } });
    expect(JSON.stringify(found.content)).toContain('Dana keeps bees on the roof');
    await client.close();
  });
});

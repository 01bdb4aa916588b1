import type { Command } from 'commander';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importJsonl } from '../../import/jsonl.js';
import { formatContextBlock } from '../../inject/context-block.js';
import { withEngram, type GlobalOptions } from '../cli-context.js';
import { formatHits } from '../format-hits.js';

const SAMPLE = fileURLToPath(new URL('../../../examples/sample-memories.jsonl', import.meta.url));
const QUESTIONS = [
  'Can you suggest a Thai dish with peanut sauce for dinner?',
  'When is my car insurance due?',
  'Kyoto',
];

/**
 * `engram demo`: the main job on embedded defaults — a fresh SQLite file, the offline embedder,
 * the sample memories imported, three recalls explained and the context block each would inject.
 */
export function registerDemo(program: Command, globals: () => GlobalOptions): void {
  program
    .command('demo')
    .description('import the sample memories into a fresh database and answer a few recalls')
    .option('--file <jsonl>', 'memories to import', SAMPLE)
    .action(async (flags: { file: string }) => {
      const options = globals();
      const dir = options.store ? null : await mkdtemp(join(tmpdir(), 'engram-demo-'));
      const store = options.store ?? join(dir as string, 'engram.db');
      const scope = { tenant: options.tenant, user: options.user ?? 'demo-user' };
      try {
        await withEngram({ ...options, store }, async (engram) => {
          const started = performance.now();
          const { imported } = await importJsonl(flags.file, (inputs) => engram.addMany(inputs, { scope }));
          console.log(`Imported ${imported} memories into ${store} in ${((performance.now() - started) / 1000).toFixed(1)} s.\n`);
          for (const question of QUESTIONS) {
            const result = await engram.recall(question, { scope, limit: 3 });
            console.log(`> ${question}`);
            console.log(options.json ? JSON.stringify(result, null, 2) : formatHits(result, true));
            const block = formatContextBlock(result.hits);
            if (!options.json) console.log(block ? `\nInjected into the system prompt:\n${block.text}` : '\n(nothing injected)');
            console.log('');
          }
        });
      } finally {
        if (dir) await rm(dir, { recursive: true, force: true });
      }
    });
}

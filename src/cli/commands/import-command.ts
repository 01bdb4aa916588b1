import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { EngramError } from '../../model/errors.js';
import { importJsonl } from '../../import/jsonl.js';
import { parseLocomo } from '../../import/locomo.js';
import type { Engram } from '../../engram.js';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseNumber } from '../parse-option.js';
import { createProgress } from '../progress.js';

interface ImportFlags {
  format: 'auto' | 'jsonl' | 'locomo';
  batch: number;
  observations?: boolean;
  quiet?: boolean;
}

async function detectFormat(file: string): Promise<'jsonl' | 'locomo'> {
  if (file.endsWith('.jsonl') || file.endsWith('.ndjson')) return 'jsonl';
  const head = (await readFile(file, 'utf8')).trimStart();
  return head.startsWith('[') ? 'locomo' : 'jsonl';
}

async function importLocomo(engram: Engram, file: string, options: GlobalOptions, flags: ImportFlags): Promise<number> {
  const data: unknown = JSON.parse(await readFile(file, 'utf8'));
  const conversations = parseLocomo(data);
  const total = conversations.reduce((n, c) => n + c.memories.length + (flags.observations ? c.observations.length : 0), 0);
  const progress = createProgress('import', flags.quiet);
  let done = 0;
  try {
    for (const conversation of conversations) {
      // Each conversation is its own user unless the caller names one.
      const scope = { ...scopeOf(options), user: options.user ?? conversation.sampleId };
      const inputs = [...conversation.memories, ...(flags.observations ? conversation.observations : [])];
      for (let i = 0; i < inputs.length; i += flags.batch) {
        const batch = inputs.slice(i, i + flags.batch);
        await engram.addMany(batch, { scope });
        done += batch.length;
        progress.update(done, total);
      }
    }
  } finally {
    progress.stop();
  }
  return done;
}

/** `engram import <file>`: JSONL memories or LoCoMo conversations (one memory per turn). */
export function registerImport(program: Command, globals: () => GlobalOptions): void {
  program
    .command('import')
    .description('import memories from JSONL (one MemoryInput per line) or a LoCoMo-format file')
    .argument('<file>', 'the file to import')
    .option('--format <format>', 'auto, jsonl or locomo', 'auto')
    .option('--batch <n>', 'memories per transaction', parseNumber, 256)
    .option('--observations', 'LoCoMo: also import observation facts as LongTermMemory')
    .option('-q, --quiet', 'no progress bar')
    .action(async (file: string, flags: ImportFlags) => {
      const options = globals();
      if (!['auto', 'jsonl', 'locomo'].includes(flags.format)) {
        throw new EngramError('INVALID_INPUT', `--format must be auto, jsonl or locomo`);
      }
      const format = flags.format === 'auto' ? await detectFormat(file) : flags.format;
      const started = performance.now();
      const count = await withEngram(options, async (engram) => {
        if (format === 'locomo') return importLocomo(engram, file, options, flags);
        const progress = createProgress('import', flags.quiet);
        try {
          const result = await importJsonl(file, (inputs) => engram.addMany(inputs, { scope: scopeOf(options) }), {
            batchSize: flags.batch,
            onProgress: (done, total) => progress.update(done, total),
          });
          return result.imported;
        } finally {
          progress.stop();
        }
      });
      const seconds = (performance.now() - started) / 1000;
      const summary = { imported: count, format, seconds: Number(seconds.toFixed(2)) };
      console.log(options.json ? JSON.stringify(summary) : `imported ${count} memories (${format}) in ${seconds.toFixed(1)} s`);
    });
}

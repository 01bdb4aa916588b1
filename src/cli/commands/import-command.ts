import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { EngramError, isEngramError } from '../../model/errors.js';
import { MEMORY_STATUSES } from '../../model/memory-type.js';
import type { Scope } from '../../model/scope.js';
import { importJsonl, type ImportJsonlResult } from '../../import/jsonl.js';
import { parseLocomo } from '../../import/locomo.js';
import type { Engram } from '../../engram.js';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import type { SafetyPolicyPatch } from '../../model/safety-policy-patch.js';
import { parseJsonObject, parseNumber } from '../parse-option.js';
import { createProgress } from '../progress.js';

interface ImportFlags {
  format: 'auto' | 'jsonl' | 'locomo';
  batch: number;
  observations?: boolean;
  quiet?: boolean;
  resume?: boolean;
  safety?: SafetyPolicyPatch;
}

/** Ids per lookup when resuming (a list page holds at most 1000). */
const LOOKUP_CHUNK = 500;

/** Which of `ids` are stored in `scope`, in any status (an archived memory still holds its id). */
async function storedIds(engram: Engram, scope: Scope, ids: string[]): Promise<ReadonlySet<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
    const chunk = ids.slice(i, i + LOOKUP_CHUNK);
    const page = await engram.list({ scope, ids: chunk, statuses: [...MEMORY_STATUSES], limit: chunk.length });
    for (const memory of page.items) found.add(memory.id);
  }
  return found;
}

async function importJsonlFile(
  engram: Engram,
  file: string,
  scope: Scope,
  flags: ImportFlags,
): Promise<ImportJsonlResult> {
  const progress = createProgress('import', flags.quiet);
  try {
    return await importJsonl(file, (inputs) => engram.addMany(inputs, { scope, safety: flags.safety }), {
      batchSize: flags.batch,
      storedIds: flags.resume ? (ids) => storedIds(engram, scope, ids) : undefined,
      onProgress: (imported, total, skipped) => progress.update(imported + skipped, total),
    });
  } catch (error) {
    if (isEngramError(error, 'CONFLICT') && !flags.resume) {
      throw new EngramError(
        'CONFLICT',
        `${error.message} (to resume an interrupted import, run it again with --resume)`,
        {
          cause: error,
          details: error.details,
        },
      );
    }
    throw error;
  } finally {
    progress.stop();
  }
}

async function detectFormat(file: string): Promise<'jsonl' | 'locomo'> {
  if (file.endsWith('.jsonl') || file.endsWith('.ndjson')) return 'jsonl';
  const head = (await readFile(file, 'utf8')).trimStart();
  return head.startsWith('[') ? 'locomo' : 'jsonl';
}

async function importLocomo(engram: Engram, file: string, options: GlobalOptions, flags: ImportFlags): Promise<number> {
  const data: unknown = JSON.parse(await readFile(file, 'utf8'));
  const conversations = parseLocomo(data);
  const total = conversations.reduce(
    (n, c) => n + c.memories.length + (flags.observations ? c.observations.length : 0),
    0,
  );
  const progress = createProgress('import', flags.quiet);
  let done = 0;
  try {
    for (const conversation of conversations) {
      // Each conversation is its own user unless the caller names one.
      const scope = { ...scopeOf(options), user: options.user ?? conversation.sampleId };
      const inputs = [...conversation.memories, ...(flags.observations ? conversation.observations : [])];
      for (let i = 0; i < inputs.length; i += flags.batch) {
        const batch = inputs.slice(i, i + flags.batch);
        await engram.addMany(batch, { scope, safety: flags.safety });
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
    .option('-q, --quiet', 'no progress (a bar on a terminal, else a line a second on stderr)')
    .option(
      '--safety <json>',
      'tighten the write-safety policy for this import (JSON, e.g. \'{"actions":{"email":"mask"}}\')',
      parseJsonObject,
    )
    .option('--resume', 'JSONL: skip lines whose id is already stored (finish an interrupted import)')
    .action(async (file: string, flags: ImportFlags) => {
      const options = globals();
      if (!['auto', 'jsonl', 'locomo'].includes(flags.format)) {
        throw new EngramError('INVALID_INPUT', `--format must be auto, jsonl or locomo`);
      }
      const format = flags.format === 'auto' ? await detectFormat(file) : flags.format;
      if (format === 'locomo' && flags.resume) {
        throw new EngramError('INVALID_INPUT', '--resume needs a JSONL file with an id on every line');
      }
      const started = performance.now();
      const { imported, skipped } = await withEngram(options, async (engram) =>
        format === 'locomo'
          ? { imported: await importLocomo(engram, file, options, flags), skipped: 0 }
          : importJsonlFile(engram, file, scopeOf(options), flags),
      );
      const seconds = (performance.now() - started) / 1000;
      const summary = { imported, skipped, format, seconds: Number(seconds.toFixed(2)) };
      const skippedNote = skipped > 0 ? `, skipped ${skipped} already stored` : '';
      console.log(
        options.json
          ? JSON.stringify(summary)
          : `imported ${imported} memories (${format}) in ${seconds.toFixed(1)} s${skippedNote}`,
      );
    });
}

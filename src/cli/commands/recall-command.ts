import type { Command } from 'commander';
import { MEMORY_TYPES, type MemoryType } from '../../model/memory-type.js';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { formatHits } from '../format-hits.js';
import { parseLimit, parseList, parseNumber } from '../parse-option.js';

interface RecallFlags {
  limit?: number;
  threshold?: number;
  profile?: 'engram' | 'seed';
  types?: string[];
  explain?: boolean;
  includeFlagged?: boolean;
  asOf?: string;
  includeSuperseded?: boolean;
}

/** `engram recall <query>`: the core hybrid recall, as a table or JSON. */
export function registerRecall(program: Command, globals: () => GlobalOptions): void {
  for (const name of ['recall']) {
    program
      .command(name)
      .description('recall the memories relevant to a query (the core hybrid recall)')
      .argument('<query>', 'the question or message')
      .option('-k, --limit <n>', 'number of memories', parseLimit)
      .option('--threshold <x>', 'minimum fused score (0 shows every ranked hit)', parseNumber)
      .option('--profile <name>', "fusion profile: 'engram' (default) or 'seed' (the reference, exactly)")
      .option('--types <list>', `memory types, comma separated (${MEMORY_TYPES.join(', ')})`, parseList)
      .option('--explain', 'show cosine, BM25, weights, channels and timings')
      .option('--include-flagged', 'return memories flagged as trying to instruct the model (withheld by default)')
      .option('--as-of <date>', 'what was valid at this instant (ISO-8601) instead of now')
      .option('--include-superseded', 'also memories no longer (or not yet) valid, marked as such')
      .action(async (query: string, flags: RecallFlags) => {
        const options = globals();
        await withEngram(options, async (engram) => {
          const result = await engram.recall(query, {
            scope: scopeOf(options),
            limit: flags.limit,
            threshold: flags.threshold,
            profile: flags.profile,
            types: flags.types as MemoryType[] | undefined,
            includeFlagged: flags.includeFlagged,
            asOf: flags.asOf,
            includeSuperseded: flags.includeSuperseded,
          });
          const withheld = result.withheld.map(
            (h) => `withheld ${h.memory.id}: ${h.explanation.flagged?.reason ?? ''}`,
          );
          const table = [formatHits(result, flags.explain === true), ...withheld].join('\n');
          console.log(options.json ? JSON.stringify(result, null, 2) : table);
        });
      });
  }
}

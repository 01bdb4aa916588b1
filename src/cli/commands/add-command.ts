import type { Command } from 'commander';
import type { MemoryType } from '../../model/memory-type.js';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import type { SafetyPolicyPatch } from '../../model/safety-policy-patch.js';
import { parseJsonObject, parseList } from '../parse-option.js';

interface AddFlags {
  type?: string;
  tags?: string[];
  key?: string;
  statedAt?: string;
  safety?: SafetyPolicyPatch;
}

/** `engram add <text>`: stores one memory and prints its id. */
export function registerAdd(program: Command, globals: () => GlobalOptions): void {
  program
    .command('add')
    .description('store one memory')
    .argument('<text>', 'the memory text')
    .option('--type <type>', 'memory type (default LongTermMemory)')
    .option('--tags <list>', 'comma-separated tags', parseList)
    .option('--key <key>', 'optional key')
    .option('--stated-at <date>', 'when it was stated (ISO-8601)')
    .option(
      '--safety <json>',
      'tighten the write-safety policy for this memory, e.g. \'{"actions":{"card":"reject"}}\'',
      parseJsonObject,
    )
    .action(async (text: string, flags: AddFlags) => {
      const options = globals();
      await withEngram(options, async (engram) => {
        const memory = await engram.add(
          {
            text,
            type: flags.type as MemoryType | undefined,
            tags: flags.tags,
            key: flags.key,
            statedAt: flags.statedAt,
          },
          { scope: scopeOf(options), safety: flags.safety },
        );
        console.log(options.json ? JSON.stringify(memory, null, 2) : `added ${memory.id}`);
      });
    });
}

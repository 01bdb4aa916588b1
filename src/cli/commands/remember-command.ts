import type { Command } from 'commander';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseNumber } from '../parse-option.js';
import { atLine, readTranscript } from '../read-transcript.js';
import { formatQueue } from './formation-command.js';

interface RememberFlags {
  wait: boolean;
  timeout?: number;
}

/**
 * `engram remember <transcript.jsonl>`: stores a conversation's turns as episodes (repeated texts
 * merge) and queues their formation; by default waits until the facts are formed (this process
 * runs the worker), `--no-wait` returns once the turns are stored (a server or `engram formation
 * run` forms them).
 */
export function registerRemember(program: Command, globals: () => GlobalOptions): void {
  program
    .command('remember')
    .description('store a conversation (JSONL, one turn per line) and form its facts in the background')
    .argument(
      '<transcript>',
      'JSONL file of turns {role, text, speaker?, session?, messageId?, occurredAt?}; - for stdin',
    )
    .option('--no-wait', 'return once the turns are stored; leave forming their facts to a running worker')
    .option('--timeout <ms>', 'longest wait for formation', parseNumber)
    .action(async (file: string, flags: RememberFlags) => {
      const options = globals();
      const transcript = await readTranscript(file);
      const scope = scopeOf(options);
      await withEngram(
        options,
        async (engram) => {
          const result = await engram.remember(transcript.turns, { scope }).catch((error: unknown) => {
            throw atLine(error, transcript);
          });
          const count = (action: string): number => result.turns.filter((t) => t.action === action).length;
          const stored = `stored ${result.turns.length} turns (${count('insert')} new, ${count('merge')} merged, ${count('unchanged')} already recorded)`;
          if (!options.json) console.log(`${stored}; formation: ${result.formation}, ${result.jobs} windows`);
          if (!flags.wait || result.formation !== 'queued') {
            if (options.json) console.log(JSON.stringify(result, null, 2));
            return;
          }
          await engram.idle({ scope, timeoutMs: flags.timeout });
          const status = await engram.formationStatus({ scope });
          if (options.json) console.log(JSON.stringify({ ...result, status }, null, 2));
          else console.log(`formed: ${formatQueue(status.queue)}`);
        },
        { formationWorker: flags.wait },
      );
    });
}

import type { Command } from 'commander';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseNumber } from '../parse-option.js';
import { createProgress } from '../progress.js';

/** `engram reembed --embedder <name>`: re-embeds the scope's memories with a new model. */
export function registerReembed(program: Command, globals: () => GlobalOptions): void {
  program
    .command('reembed')
    .description("re-embed every memory of the scope's (tenant, user) with the --embedder model")
    .option('--batch <n>', 'memories per embedding batch', parseNumber, 64)
    .option('-q, --quiet', 'no progress bar')
    .action(async (flags: { batch: number; quiet?: boolean }) => {
      const options = globals();
      const progress = createProgress('reembed', flags.quiet);
      const count = await withEngram(options, (engram) =>
        engram
          .reembed({ scope: scopeOf(options), batchSize: flags.batch, onProgress: (d, t) => progress.update(d, t) })
          .finally(() => progress.stop()),
      );
      console.log(options.json ? JSON.stringify({ reembedded: count }) : `re-embedded ${count} memories with ${options.embedder ?? 'use-lite'}`);
    });
}

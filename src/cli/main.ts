import { Command, CommanderError } from 'commander';
import { isEngramError } from '../model/errors.js';
import type { GlobalOptions } from './cli-context.js';
import { registerAdd } from './commands/add-command.js';
import { registerDemo } from './commands/demo-command.js';
import { registerEval } from './commands/eval-command.js';
import { registerImport } from './commands/import-command.js';
import { registerRecall } from './commands/recall-command.js';
import { registerReembed } from './commands/reembed-command.js';
import { registerSearch } from './commands/search-command.js';
import { registerKeys } from './commands/keys-command.js';
import { registerMcp } from './commands/mcp-command.js';
import { registerServe } from './commands/serve-command.js';
import { registerStats } from './commands/stats-command.js';
import { registerStoreCommands } from './commands/store-commands.js';

/** Builds the `engram` command line. Exported so tests can run it in-process. */
export function buildProgram(): Command {
  const program = new Command('engram')
    .description('Engram: memory for LLM applications')
    .option('--store <spec>', 'SQLite file or postgres:// URL (env ENGRAM_STORE; default ./.engram/engram.db)')
    .option('--embedder <name>', "embedder: use-lite (offline default), openai:<model>, ollama:<model> (env ENGRAM_EMBEDDER)")
    .option('--tenant <id>', 'tenant', 'default')
    .option('--user <id>', 'user')
    .option('--agent <id>', 'agent')
    .option('--session <id>', 'session')
    .option('--collection <id>', 'collection')
    .option('--json', 'print JSON')
    .showHelpAfterError();
  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  registerDemo(program, globals);
  registerAdd(program, globals);
  registerImport(program, globals);
  registerRecall(program, globals);
  registerSearch(program, globals);
  registerEval(program, globals);
  registerStats(program, globals);
  registerReembed(program, globals);
  registerServe(program, globals);
  registerKeys(program, globals);
  registerMcp(program, globals);
  registerStoreCommands(program, globals);
  return program;
}

/** Runs the CLI; errors become one line on stderr and a non-zero exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram().exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    if (isEngramError(error)) {
      console.error(`error ${error.code}: ${error.message}`);
      return 2;
    }
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

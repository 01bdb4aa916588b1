import { Command, CommanderError } from 'commander';
import { isEngramError, type EngramErrorCode } from '../model/errors.js';
import type { GlobalOptions } from './cli-context.js';
import { registerAdd } from './commands/add-command.js';
import { registerCalibrate } from './commands/calibrate-command.js';
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
import { registerSafety } from './commands/safety-command.js';
import { registerScrub } from './commands/scrub-command.js';
import { registerStoreCommands } from './commands/store-commands.js';
import { registerRemember } from './commands/remember-command.js';
import { registerHistory } from './commands/history-command.js';
import { registerFormation } from './commands/formation-command.js';

/** Where the CLI writes its errors (stderr; tests pass their own). */
export interface CliOutput {
  error(text: string): void;
}

const STDERR: CliOutput = { error: (text) => console.error(text) };

/** A missing text or query is INVALID_TEXT, as at every entry point; other usage mistakes INVALID_INPUT. */
function usageCode(message: string): EngramErrorCode {
  return /missing required argument '(text|query)'/.test(message) ? 'INVALID_TEXT' : 'INVALID_INPUT';
}

/** Commander outcomes that are not mistakes: help and version output. */
const NOT_A_MISTAKE = new Set(['commander.helpDisplayed', 'commander.help', 'commander.version']);

/**
 * Builds the `engram` command line. Exported so tests can run it in-process. A usage mistake
 * (unknown option or command, missing argument) is reported like every other caller mistake:
 * `error INVALID_INPUT: …` (`INVALID_TEXT` for a missing text or query).
 */
export function buildProgram(output: CliOutput = STDERR): Command {
  const program = new Command('engram')
    .configureOutput({
      writeErr: (text) => output.error(text.replace(/\n$/, '')),
      outputError: (text, write) => write(text.replace(/^error: /, `error ${usageCode(text)}: `)),
    })
    .description('Engram: memory for LLM applications')
    .option('--store <spec>', 'SQLite file or postgres:// URL (env ENGRAM_STORE; default ./.engram/engram.db)')
    .option(
      '--embedder <name>',
      'embedder: use-lite (offline default), openai:<model>, ollama:<model> (env ENGRAM_EMBEDDER)',
    )
    .option('--tenant <id>', 'tenant', 'default')
    .option('--user <id>', 'user')
    .option('--agent <id>', 'agent')
    .option('--session <id>', 'session')
    .option('--collection <id>', 'collection')
    .option('--json', 'print JSON')
    .showHelpAfterError()
    // Before the commands are added, so that every command inherits it: a usage mistake throws
    // (and main answers it) instead of exiting the process.
    .exitOverride();
  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  registerDemo(program, globals);
  registerAdd(program, globals);
  registerImport(program, globals);
  registerRemember(program, globals);
  registerHistory(program, globals);
  registerFormation(program, globals);
  registerRecall(program, globals);
  registerSearch(program, globals);
  registerEval(program, globals);
  registerCalibrate(program, globals);
  registerStats(program, globals);
  registerReembed(program, globals);
  registerServe(program, globals);
  registerKeys(program, globals);
  registerMcp(program, globals);
  registerStoreCommands(program, globals);
  registerSafety(program, globals);
  registerScrub(program, globals);
  return program;
}

/**
 * Runs the CLI; errors become one line `error CODE: message` on stderr. Exit codes: 0 done, 2 an
 * EngramError or a usage mistake (the same codes the library, REST and MCP answer), 1 anything else.
 */
export async function main(argv: string[], output: CliOutput = STDERR): Promise<number> {
  const program = buildProgram(output);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return NOT_A_MISTAKE.has(error.code) ? error.exitCode : 2;
    if (isEngramError(error)) {
      output.error(`error ${error.code}: ${error.message}`);
      return 2;
    }
    output.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

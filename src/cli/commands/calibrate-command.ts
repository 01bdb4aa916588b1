import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseNumber } from '../parse-option.js';
import { CALIBRATION_ENV } from '../read-calibration.js';
import { renderTable } from '../render-table.js';

/** `engram calibrate`: the lexical trust that suits the embedder on the scope's own data (no labels). */
export function registerCalibrate(program: Command, globals: () => GlobalOptions): void {
  program
    .command('calibrate')
    .description(
      "choose the default recall's lexical trust for the --embedder from the scope's own memories " +
        '(each memory with a background is a query for it; no labels); prints the setting to use',
    )
    .option('--pairs <n>', 'pairs used at most', parseNumber, 1000)
    .option('--save <file>', `write the calibration as JSON (point ${CALIBRATION_ENV} at it to use it)`)
    .action(async (flags: { pairs: number; save?: string }) => {
      const options = globals();
      const result = await withEngram(options, (engram) =>
        engram.calibrateFusion({ scope: scopeOf(options), maxPairs: flags.pairs }),
      );
      if (flags.save !== undefined) await writeFile(flags.save, `${JSON.stringify(result, null, 2)}\n`);
      if (options.json) {
        console.log(JSON.stringify(result, null, 2));
        return;
      }
      if (result.weights === null) {
        console.log(
          `not calibrated: ${result.pairs} pairs in this scope (at least 30 memories with a background are needed); ` +
            'the default trust 0.5 stays',
        );
        return;
      }
      console.log(
        renderTable(result.curve, [
          { header: 'trust', value: (r) => r.trust.toFixed(2), align: 'right' },
          { header: 'MRR', value: (r) => r.mrr.toFixed(3), align: 'right' },
        ]),
      );
      const w = result.weights.base;
      console.log(
        `\n${result.model}: lexical trust ${w} on ${result.pairs} pairs (cosine alone MRR ${result.denseMrr.toFixed(3)}, ` +
          `BM25 alone ${result.lexicalMrr.toFixed(3)})\nuse it: ` +
          (flags.save !== undefined
            ? `${CALIBRATION_ENV}=${flags.save} (the default profile, with this embedder only)`
            : `--save <file> and ${CALIBRATION_ENV}=<file>, or recall.calibration in code`),
      );
    });
}

import type { Command } from 'commander';
import type { Engram } from '../../engram.js';
import { compareEvals } from '../../eval/compare-evals.js';
import { readEvalCases } from '../../eval/eval-case.js';
import { apiRanker } from '../../eval/eval-ranker.js';
import { parseEvalSetting, type EvalSetting } from '../../eval/eval-setting.js';
import { formatEvalReport } from '../../eval/format-eval-report.js';
import { DEFAULT_EVAL_KS, evaluate, type EvalReport } from '../../eval/run-eval.js';
import { EngramError } from '../../model/errors.js';
import { openEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseList, parseNumber } from '../parse-option.js';
import { createProgress } from '../progress.js';

interface EvalFlags {
  k?: string[];
  with?: string;
  vs?: string;
  depth?: number;
  misses?: number;
  quiet?: boolean;
}

function cutOffs(values: string[] | undefined): number[] {
  if (values === undefined) return [...DEFAULT_EVAL_KS];
  return values.map((v) => {
    const k = Number(v);
    if (!Number.isInteger(k) || k < 1)
      throw new EngramError('INVALID_INPUT', `-k: ${JSON.stringify(v)} is not a positive integer`);
    return k;
  });
}

/**
 * One setting's own instance: its store and embedder (the run's unless the setting names others),
 * its lexical weights as configuration (the searcher reads them there), usage tracking off (an
 * evaluation must not change the store it measures).
 */
async function openSetting(options: GlobalOptions, setting: EvalSetting): Promise<Engram> {
  const weights = { base: setting.lexicalWeight, short: setting.lexicalWeightShort };
  return openEngram(
    { ...options, store: setting.store ?? options.store, embedder: setting.embedder ?? options.embedder },
    {},
    { recall: { lexicalWeights: weights }, trackUsage: false },
  );
}

async function run(file: string, options: GlobalOptions, flags: EvalFlags): Promise<void> {
  const cases = await readEvalCases(file);
  const ks = cutOffs(flags.k);
  const settings = [
    parseEvalSetting(flags.with ?? ''),
    ...(flags.vs === undefined ? [] : [parseEvalSetting(flags.vs)]),
  ];
  const reports: EvalReport[] = [];
  for (const setting of settings) {
    const engram = await openSetting(options, setting);
    const progress = createProgress('eval', flags.quiet || options.json);
    try {
      reports.push(
        await evaluate(apiRanker(engram, setting), cases, {
          ks,
          scope: scopeOf(options),
          depth: flags.depth,
          onProgress: (done, total) => progress.update(done, total),
        }),
      );
    } finally {
      progress.stop();
      await engram.close();
    }
  }
  const [a, b] = reports as [EvalReport, EvalReport | undefined];
  const result = b === undefined ? a : compareEvals(a, b);
  if (options.json) {
    console.log(JSON.stringify(b === undefined ? { a } : result, null, 2));
    return;
  }
  console.log(`engram eval ${file}: ${formatEvalReport(result, { misses: flags.misses })}`);
}

/** `engram eval <cases.jsonl>`: recall quality on the store's own data, one setting or two side by side. */
export function registerEval(program: Command, globals: () => GlobalOptions): void {
  program
    .command('eval')
    .description('measure recall quality on your own cases: recall@k, hit@k, MRR, misses; compare two settings')
    .argument(
      '<cases>',
      'JSON Lines: {"query": "...", "expected": ["memory id or key", ...], "scope"?: {...}, "category"?: "..."}',
    )
    .option('-k, --k <list>', 'cut-offs, comma separated (default 1,3,5,10)', parseList)
    .option(
      '--with <setting>',
      'setting A, e.g. profile=seed or mode=fast,reranker=cosine-local (default: recall as configured)',
    )
    .option(
      '--vs <setting>',
      'setting B, compared side by side with A (keys: mode, profile, lexical, lexical-short, reranker, embedder, store, threshold)',
    )
    .option('--depth <n>', 'how deep a miss is looked for', parseNumber, 50)
    .option('--misses <n>', 'misses listed per setting', parseNumber, 10)
    .option('-q, --quiet', 'no progress bar')
    .action(async (file: string, flags: EvalFlags) => run(file, globals(), flags));
}

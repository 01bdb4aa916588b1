import type { Command } from 'commander';
import { PATH_NAMES, type PathName } from '../../model/path-name.js';
import type { SearchMode } from '../../model/search-options.js';
import type { SearchResult } from '../../model/search-result.js';
import { parseSearchTypes } from '../../search/parse-search-types.js';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseLimit, parseList, parseNumber } from '../parse-option.js';
import { renderTable } from '../render-table.js';

interface SearchFlags {
  mode?: SearchMode;
  types?: string;
  paths?: PathName[];
  collections?: string[];
  internet?: boolean;
  reranker?: string;
  fastGraph?: boolean;
  limit?: number;
  threshold?: number;
  explain?: boolean;
  includeFlagged?: boolean;
  asOf?: string;
  includeSuperseded?: boolean;
}

function formatSearch(result: SearchResult, explain: boolean): string {
  if (result.hits.length === 0) return 'No memories found.';
  const table = renderTable(
    result.hits.map((h, i) => ({ ...h, rank: i + 1 })),
    [
      { header: '#', value: (h) => String(h.rank), align: 'right' },
      { header: 'relevance', value: (h) => h.relevance.toFixed(3), align: 'right' },
      ...(explain
        ? [
            { header: 'paths', value: (h: SearchResult['hits'][number]) => h.explanation.paths.join('+') },
            {
              header: 'channels',
              value: (h: SearchResult['hits'][number]) =>
                Object.entries(h.explanation.channels)
                  .map(([k, v]) => `${k}=${v.toFixed(2)}`)
                  .join(' '),
              max: 40,
            },
          ]
        : []),
      { header: 'type', value: (h) => h.memory.type.replace(/Memory$/, '') },
      { header: 'text', value: (h) => h.memory.text, max: explain ? 50 : 80 },
    ],
  );
  if (!explain) return table;
  const t = result.timings;
  const degraded = Object.entries(result.degraded).map(([k, v]) => `${k}: ${v}`);
  return [
    table,
    '',
    `plan: mode ${result.plan.mode}, paths ${result.plan.paths.join(', ')}, reranker ${result.plan.reranker}, queries ${JSON.stringify(result.plan.queryTexts)}`,
    `timings: plan ${t.planMs.toFixed(1)} ms, embed ${t.embedMs.toFixed(1)} ms, paths ${t.pathsMs.toFixed(1)} ms, post ${t.postMs.toFixed(1)} ms, total ${t.totalMs.toFixed(1)} ms`,
    ...(degraded.length > 0 ? [`degraded: ${degraded.join('; ')}`] : []),
  ].join('\n');
}

/** `engram search <query>`: the multi-path searcher (`Engram.search`) over every memory type. */
export function registerSearch(program: Command, globals: () => GlobalOptions): void {
  program
    .command('search')
    .description('search memories over every path and type (fast without an LLM; fine/deep use ENGRAM_LLM)')
    .argument('<query>', 'the question or message')
    .option('--mode <mode>', 'fast (default), fine or deep')
    .option('--types <list>', 'memory types or aliases, comma separated (e.g. long-term,preference)')
    .option('--paths <list>', `run only these paths, comma separated (${PATH_NAMES.join(', ')})`, parseList)
    .option('--collections <list>', 'search these collections, comma separated, merged', parseList)
    .option('--internet', 'add web results (ENGRAM_SEARXNG_URL, TAVILY_API_KEY or BRAVE_API_KEY)')
    .option('--reranker <name>', 'noop (default), cosine-local, or http (ENGRAM_RERANK_URL)')
    .option('--fast-graph', 'fast mode: use the query words as graph keys and tags')
    .option('-k, --limit <n>', 'hits per text type bucket (topK)', parseLimit)
    .option('--threshold <x>', 'minimum relevance', parseNumber)
    .option('--explain', 'show paths, channel scores, the plan and timings')
    .option('--include-flagged', 'return memories flagged as trying to instruct the model (withheld by default)')
    .option('--as-of <date>', 'what was valid at this instant (ISO-8601) instead of now')
    .option('--include-superseded', 'also memories no longer (or not yet) valid, marked as such')
    .action(async (query: string, flags: SearchFlags) => {
      const options = globals();
      await withEngram(options, async (engram) => {
        const result = await engram.search(query, {
          scope: scopeOf(options),
          mode: flags.mode,
          types: flags.types === undefined ? undefined : parseSearchTypes(flags.types),
          paths: flags.paths,
          collections: flags.collections,
          internet: flags.internet,
          reranker: flags.reranker,
          fastGraph: flags.fastGraph,
          topK: flags.limit,
          threshold: flags.threshold,
          includeFlagged: flags.includeFlagged,
          asOf: flags.asOf,
          includeSuperseded: flags.includeSuperseded,
        });
        const withheld = result.withheld.map((h) => `withheld ${h.memory.id}: ${h.explanation.flagged?.reason ?? ''}`);
        const table = [formatSearch(result, flags.explain === true), ...withheld].join('\n');
        console.log(options.json ? JSON.stringify(result, null, 2) : table);
      });
    });
}

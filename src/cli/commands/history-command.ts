import type { Command } from 'commander';
import type { HistoryEvent, MemorySnapshot } from '../../formation/history.js';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { parseLimit } from '../parse-option.js';
import { renderTable } from '../render-table.js';

function causeOf(event: HistoryEvent): string {
  const { cause } = event;
  if (cause.type === 'api') return `api ${cause.operation}`;
  if (cause.type === 'formation') return `formation (${cause.decidedBy})`;
  if (cause.type === 're-embed') return `re-embed ${cause.model}`;
  if (cause.type === 'import') return `import ${cause.source}`;
  return `system ${cause.detail}`;
}

function validity(snapshot: MemorySnapshot | null): string {
  if (!snapshot) return '—';
  const from = snapshot.validFrom?.slice(0, 10) ?? '?';
  const to = snapshot.validTo ? snapshot.validTo.slice(0, 10) : 'now';
  return `${from} → ${to}${snapshot.supersededBy ? ` (by ${snapshot.supersededBy})` : ''}`;
}

/** `engram history <id>`: every change of a memory, oldest first (it outlives a delete). */
export function registerHistory(program: Command, globals: () => GlobalOptions): void {
  program
    .command('history')
    .description(
      "a memory's changes: created, updated, superseded, archived, deleted, restored, re-embedded, confirmed",
    )
    .argument('<id>', 'the memory id')
    .option('-k, --limit <n>', 'events per page (default 50)', parseLimit)
    .option('--cursor <cursor>', 'the next page')
    .action(async (id: string, flags: { limit?: number; cursor?: string }) => {
      const options = globals();
      await withEngram(options, async (engram) => {
        const page = await engram.history(id, { scope: scopeOf(options), limit: flags.limit, cursor: flags.cursor });
        if (options.json) {
          console.log(JSON.stringify(page, null, 2));
          return;
        }
        if (page.items.length === 0) {
          console.log(`no history for ${id}`);
          return;
        }
        console.log(
          renderTable(page.items, [
            { header: 'at', value: (e) => e.at.replace('T', ' ').slice(0, 19) },
            { header: 'kind', value: (e) => e.kind },
            { header: 'v', value: (e) => String(e.after?.version ?? e.before?.version ?? ''), align: 'right' },
            { header: 'cause', value: causeOf },
            { header: 'caller', value: (e) => (e.caller.id ? `${e.caller.kind} ${e.caller.id}` : e.caller.kind) },
            { header: 'valid', value: (e) => validity(e.after ?? e.before) },
            { header: 'text', value: (e) => (e.after ?? e.before)?.text ?? '' },
          ]),
        );
        if (page.nextCursor) console.log(`\nmore: --cursor ${page.nextCursor}`);
      });
    });
}

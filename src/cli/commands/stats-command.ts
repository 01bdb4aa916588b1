import type { Command } from 'commander';
import { withEngram, scopeOf, type GlobalOptions } from '../cli-context.js';
import { renderTable } from '../render-table.js';

/** `engram stats`: counts by type, status and embedding model in the scope. */
export function registerStats(program: Command, globals: () => GlobalOptions): void {
  program
    .command('stats')
    .description('count memories by type, status and embedding model')
    .action(async () => {
      const options = globals();
      await withEngram(options, async (engram) => {
        const stats = await engram.stats({ scope: scopeOf(options), statuses: ['activated', 'archived'] });
        if (options.json) {
          console.log(JSON.stringify(stats, null, 2));
          return;
        }
        console.log(`total: ${stats.total}\n`);
        const rows = [
          ...Object.entries(stats.byType).map(([k, v]) => ({ group: 'type', name: k, count: v ?? 0 })),
          ...Object.entries(stats.byStatus).map(([k, v]) => ({ group: 'status', name: k, count: v ?? 0 })),
          ...stats.models.map((m) => ({ group: 'model', name: `${m.model} (${m.dim} dims)`, count: m.count })),
        ];
        console.log(
          renderTable(rows, [
            { header: 'group', value: (r) => r.group },
            { header: 'name', value: (r) => r.name },
            { header: 'count', value: (r) => String(r.count), align: 'right' },
          ]),
        );
      });
    });
}

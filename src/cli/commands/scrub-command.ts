import type { Command } from 'commander';
import { resolve } from 'node:path';

import type { Embedder } from '../../embed/embedder.js';
import { resolveEmbedder } from '../../embed/index.js';
import { WriteGuard } from '../../safety/write-guard.js';
import { openStore } from '../../store/open-store.js';
import { dataDirTenantPolicy } from '../../tenant/tenant-settings.js';
import { DEFAULT_DATA_DIR, safetyPolicyFromEnv, type GlobalOptions } from '../cli-context.js';
import { createProgress } from '../progress.js';
import { scrubTenant, type ScrubSummary } from '../scrub-tenant.js';

interface ScrubFlags {
  dryRun?: boolean;
  quiet?: boolean;
  dataDir: string;
}

function counts(values: ScrubSummary['masked']): string {
  const parts = Object.entries(values).map(([category, n]) => `${category} ${n}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

function describe(tenant: string, s: ScrubSummary): string {
  const verb = s.dryRun ? 'would change' : 'changed';
  return [
    `${s.dryRun ? 'dry run: ' : ''}scanned ${s.scanned} memories of tenant ${tenant}, ${verb} ${s.changed}`,
    `masked: ${counts(s.masked)}${Object.keys(s.rejected).length > 0 ? ` (of which rejected on write: ${counts(s.rejected)})` : ''}`,
    `flagged as instructions: ${s.flagged}`,
    `history events ${s.dryRun ? 'to redact' : 'redacted'}: ${s.historyRedacted}`,
    ...(s.dryRun
      ? []
      : [
          `re-embedded: ${s.reembedded}, vectors dropped: ${s.vectorsDropped}${s.vectorsDropped > 0 ? ' (run engram reembed)' : ''}`,
          `storage compacted: ${s.compacted ? 'yes' : 'no'}`,
        ]),
  ].join('\n');
}

/**
 * `engram scrub --tenant T [--dry-run]`: applies the tenant's write-safety policy (the instance's
 * from ENGRAM_SAFETY, the tenant's from the data directory) to what the tenant already stores.
 */
export function registerScrub(program: Command, globals: () => GlobalOptions): void {
  program
    .command('scrub')
    .description("apply --tenant's write-safety policy to its stored memories and their history (counts per category)")
    .option('--dry-run', 'count what would change; write nothing')
    .option('-q, --quiet', 'no progress bar')
    .option('--data-dir <dir>', 'the server data directory whose tenant safety settings apply', DEFAULT_DATA_DIR)
    .action(async (flags: ScrubFlags) => {
      const options = globals();
      const tenantPolicy = dataDirTenantPolicy(resolve(flags.dataDir));
      const guard = new WriteGuard({ policy: safetyPolicyFromEnv(), tenantPolicy });
      const store = await openStore(options.store ?? process.env['ENGRAM_STORE']);
      const progress = createProgress('scrub', flags.quiet);
      try {
        const policy = await guard.policy(options.tenant);
        // Masked text is re-embedded with the configured embedder when it made the memory's vector.
        let embedder: Promise<Embedder> | undefined;
        const openEmbedder = (): Promise<Embedder> =>
          (embedder ??= resolveEmbedder(options.embedder ?? process.env['ENGRAM_EMBEDDER'] ?? 'use-lite'));
        try {
          const summary = await scrubTenant(store, {
            tenant: options.tenant,
            policy,
            dryRun: flags.dryRun,
            embedder: openEmbedder,
            onProgress: (n) => progress.update(n, null),
          });
          progress.stop();
          console.log(options.json ? JSON.stringify(summary) : describe(options.tenant, summary));
        } finally {
          await embedder?.then(
            (e) => e.close?.(),
            () => undefined,
          );
        }
      } finally {
        progress.stop();
        await store.close();
        await guard.close();
      }
    });
}

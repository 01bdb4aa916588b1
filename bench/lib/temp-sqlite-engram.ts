import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Engram, type EngramOptions } from '../../src/engram.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

/**
 * Engram over a new SQLite file in a new temp folder (`prefix` names the folder, `file` the
 * database). `dispose` closes the Engram (its store too unless `ownResources` is false) and
 * removes the folder.
 */
export async function openTempSqliteEngram(
  prefix: string,
  file: string,
  options: Omit<EngramOptions, 'store'>,
): Promise<{ engram: Engram; dispose: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const engram = await Engram.open({ store: createSqliteStore({ path: join(dir, file) }), ...options });
  return {
    engram,
    dispose: async () => {
      await engram.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

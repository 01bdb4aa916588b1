import type { MemoryApi } from '../model/api.js';

/**
 * What injection needs from Engram: recall only. The in-process facade (`Engram`) and the
 * remote client both satisfy it; tests may pass any object that returns real recall results.
 */
export type Recaller = Pick<MemoryApi, 'recall'>;

/** What capture through formation needs: `remember` within an explicit scope. */
export type FormationWriter = Pick<MemoryApi, 'remember'>;

/**
 * What capture needs from Engram: an atomic batch add within an explicit scope, and `remember`
 * to capture through formation. The facade and the remote client both satisfy it.
 */
export type MemoryWriter = Pick<MemoryApi, 'addMany'> & Partial<FormationWriter>;

import type { SqliteStatement } from '../../util/sqlite-database.js';

/** Taken when this module loads, so test fake timers installed later cannot stop a turn from ending. */
const nextTurn = setImmediate;

/** Commits made by this process's SQLite stores (any connection, any file). */
let localCommits = 0;

/** Called after every commit of a store of this process, so no check of another store in this process stays reused past it. */
export function noteLocalCommit(): void {
  localCommits++;
}

/**
 * `PRAGMA data_version` (it changes when another connection commits) read at most once per
 * event-loop turn: a recall or search asks several times (each channel, then the row reads) and
 * each read is a statement through libsql (tens of µs). Reusing it within a turn is safe because
 * learning of another process's commit takes I/O, which arrives in a later turn; a commit of
 * another connection of this process ({@link noteLocalCommit}) forces a fresh read.
 */
export class DataVersionCheck {
  private version = -1;
  private readAtCommits = -1;
  private readThisTurn = false;

  constructor(private readonly statement: SqliteStatement<[], number>) {}

  read(): number {
    if (this.readThisTurn && this.readAtCommits === localCommits) return this.version;
    this.version = this.statement.get() as number;
    this.readAtCommits = localCommits;
    if (!this.readThisTurn) {
      this.readThisTurn = true;
      nextTurn(() => {
        this.readThisTurn = false;
      }).unref();
    }
    return this.version;
  }
}

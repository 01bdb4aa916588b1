import type { ProviderName } from '../../model/provider-name.js';

/**
 * One request shape. Every function accepts anything and never throws on odd input: an
 * unknown shape yields a null query and an untouched request.
 */
export interface ProviderAdapter {
  readonly name: ProviderName;
  /**
   * Text of the last user message that has text (text parts joined with a newline; images,
   * files, audio and tool results skipped), or null when there is none.
   */
  extractQuery(request: unknown): string | null;
  /**
   * A copy of `request` with `block` appended to its system instructions. The caller's object
   * and everything in it is left untouched (copy on write); everything the caller had is kept,
   * in place. Returns `request` itself when the shape is not recognised.
   */
  injectBlock<R>(request: R, block: string): R;
  /** Assistant text of a complete (non-streamed) response, or null. */
  replyText(response: unknown): string | null;
  /** Assistant text carried by one streamed event/chunk, or null. */
  streamDeltaText(chunk: unknown): string | null;
}

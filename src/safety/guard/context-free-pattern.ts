/**
 * Whether every match of `pattern` in a part of a text is a match in the whole text, when the part
 * is bounded by non-word characters or the text's ends: true for a pattern without `^`, `$`,
 * negative lookarounds, back-references and the `m` / `y` flags (its `\b` and `\B` see the same
 * word / non-word neighbours at the part's edges, a positive lookaround the same characters or
 * more). Conservative: read from the source with escapes and character classes removed, so an
 * unusual spelling can only make it say false.
 */
export function isContextFree(pattern: RegExp): boolean {
  if (/[my]/.test(pattern.flags) || /\\(?:[1-9]|k<)/.test(pattern.source)) return false;
  const bare = pattern.source.replace(/\\[^]/g, '_').replace(/\[[^\]]*\]/g, '_');
  return !/[\^$]|\(\?<?!/.test(bare);
}

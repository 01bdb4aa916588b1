const REMOVED = Symbol('removed');
const BLOCK = /(\n\n)?<engram_context>[\s\S]*?<\/engram_context>/;

/**
 * The inverse of an injection, written independently of the code under test: removes every
 * `<engram_context>` block from a JSON value, and the containers that held nothing but the block
 * (a `{type:'text', text}` part, a `{role:'system', content}` message, an emptied array).
 */
export function stripBlock(value: unknown): unknown {
  const out = strip(value);
  return out === REMOVED ? undefined : out;
}

function strip(value: unknown): unknown {
  if (typeof value === 'string') {
    if (!BLOCK.test(value)) return value;
    const rest = value.replace(BLOCK, '');
    return rest === '' ? REMOVED : rest;
  }
  if (Array.isArray(value)) {
    const kept = value.map(strip).filter((v) => v !== REMOVED);
    return kept.length === 0 && value.length > 0 ? REMOVED : kept;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    let dropped = false;
    for (const [k, v] of Object.entries(value)) {
      const s = strip(v);
      if (s === REMOVED) dropped = true;
      else out[k] = s;
    }
    if (dropped && Object.keys(out).every((k) => k === 'type' || k === 'role')) return REMOVED;
    return out;
  }
  return value;
}

/** Number of `<engram_context>` blocks anywhere in a JSON value. */
export function countBlocks(value: unknown): number {
  return (JSON.stringify(value).match(/<engram_context>/g) ?? []).length;
}

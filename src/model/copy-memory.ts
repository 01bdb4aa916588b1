import type { JsonObject, JsonValue } from './json.js';
import type { Memory } from './memory.js';

/**
 * A memory no other holder shares: every array and object of it copied (strings are immutable
 * and kept), in the same key order. A cache hands these out so a caller that edits its memory
 * changes nothing the next reader gets; copying is cheaper than decoding the row again.
 */
export function copyMemory(memory: Memory): Memory {
  return {
    ...memory,
    tags: memory.tags.slice(),
    sources: memory.sources.map((source) => ({ ...source })),
    scope: { ...memory.scope },
    metadata: copyJsonObject(memory.metadata),
    usage: { ...memory.usage },
    embedding: memory.embedding === null ? null : { ...memory.embedding },
  };
}

/** A deep copy of a JSON object, with the same own keys (`__proto__` included) in the same order. */
function copyJsonObject(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const copied = copyJson(value[key] as JsonValue);
    // JSON.parse makes `__proto__` an own key; a plain assignment would set the prototype instead.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copied, enumerable: true, writable: true, configurable: true });
    else out[key] = copied;
  }
  return out;
}

function copyJson(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson);
  return copyJsonObject(value);
}

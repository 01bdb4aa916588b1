/**
 * The literal of `literals` equal to `value`, else `value` itself. Strings a driver returns are
 * new objects each time; mapping the few values of a closed set (memory types, statuses) to their
 * literals lets every later comparison and `Map` lookup by them match pointers instead of
 * comparing characters, and rows share one string per value instead of holding one each.
 */
export function knownLiteral<T extends string>(value: string, literals: readonly T[]): T | string {
  for (const literal of literals) if (literal === value) return literal;
  return value;
}

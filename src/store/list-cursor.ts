import { EngramError } from '../model/errors.js';
import type { ListOptions } from '../model/memory-filter.js';

/** Sort column of a list. */
export type ListOrder = NonNullable<ListOptions['order']>;
/** Sort direction of a list. */
export type ListDirection = NonNullable<ListOptions['direction']>;

/**
 * Position after the last item of a page: the sort value of that item (null for a missing
 * `statedAt`) and its id as the tie-breaker. Keyset paging on (value, id) is stable under
 * inserts: rows that existed when paging started are neither repeated nor skipped.
 */
export interface ListCursor {
  order: ListOrder;
  direction: ListDirection;
  value: string | null;
  id: string;
}

/** Encodes a cursor as an opaque base64url string. */
export function encodeListCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.order, cursor.direction, cursor.value, cursor.id]), 'utf8').toString(
    'base64url',
  );
}

/**
 * Decodes a cursor and checks that it was made for the same order and direction.
 * Throws EngramError('INVALID_INPUT') for anything else.
 */
export function decodeListCursor(raw: string, order: ListOrder, direction: ListDirection): ListCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch (cause) {
    throw new EngramError('INVALID_INPUT', 'invalid list cursor', { cause });
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== order ||
    parsed[1] !== direction ||
    (parsed[2] !== null && typeof parsed[2] !== 'string') ||
    typeof parsed[3] !== 'string'
  ) {
    throw new EngramError('INVALID_INPUT', 'invalid list cursor (or made for another order/direction)');
  }
  return { order, direction, value: parsed[2] as string | null, id: parsed[3] as string };
}

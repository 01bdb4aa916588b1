import { EngramError } from '../../model/errors.js';
import type { Memory } from '../../model/memory.js';
import {
  LIST_DIRECTIONS,
  LIST_ORDERS,
  MAX_STORE_LIMIT,
  type ListOptions,
  type Page,
} from '../../model/memory-filter.js';
import {
  decodeListCursor,
  encodeListCursor,
  type ListCursor,
  type ListDirection,
  type ListOrder,
} from '../list-cursor.js';
import { assertLimit } from '../record-validation.js';
import type { SqlDialect, SqlParams } from './sql-dialect.js';

/** A page request, checked: defaults applied, cursor decoded. */
export interface ListPlan {
  order: ListOrder;
  direction: ListDirection;
  limit: number;
  cursor: ListCursor | null;
}

/** A missing `statedAt` sorts as '' (first ascending, last descending) on every backend. */
const ORDER_EXPRESSIONS: Record<ListOrder, string> = {
  createdAt: 'm.created_at',
  updatedAt: 'm.updated_at',
  statedAt: "coalesce(m.stated_at, '')",
};

/**
 * Checks list options: limit an integer in [1, {@link MAX_STORE_LIMIT}] (INVALID_LIMIT), a known
 * order and direction, and a cursor made for them (INVALID_INPUT). @default 50 rows by createdAt asc
 */
export function planList(options: ListOptions | undefined): ListPlan {
  const { limit = 50, order = 'createdAt', direction = 'asc', cursor } = options ?? {};
  assertLimit(limit, MAX_STORE_LIMIT);
  if (!LIST_ORDERS.includes(order)) throw new EngramError('INVALID_INPUT', `unknown list order ${String(order)}`);
  if (!LIST_DIRECTIONS.includes(direction))
    throw new EngramError('INVALID_INPUT', `unknown list direction ${String(direction)}`);
  if (cursor !== undefined && typeof cursor !== 'string')
    throw new EngramError('INVALID_INPUT', 'invalid list cursor (expected a string)');
  return { order, direction, limit, cursor: cursor === undefined ? null : decodeListCursor(cursor, order, direction) };
}

/**
 * The keyset condition, ORDER BY and LIMIT of a page, after a WHERE over alias `m`. Keyset on
 * (order value, id): rows that existed when paging started are neither repeated nor skipped.
 * One row more than the page is read to know whether another page follows.
 */
export function pageSql(plan: ListPlan, dialect: SqlDialect, params: SqlParams): string {
  const key = dialect.sortKey(ORDER_EXPRESSIONS[plan.order]);
  const id = dialect.sortKey('m.id');
  let keyset = '';
  if (plan.cursor !== null) {
    const value = dialect.sortKey(params.add(plan.cursor.value ?? ''));
    keyset = ` AND (${key}, ${id}) ${plan.direction === 'asc' ? '>' : '<'} (${value}, ${dialect.sortKey(params.add(plan.cursor.id))})`;
  }
  const dir = plan.direction === 'asc' ? 'ASC' : 'DESC';
  return `${keyset} ORDER BY ${key} ${dir}, ${id} ${dir} LIMIT ${params.add(plan.limit + 1)}`;
}

/** The page of the rows read by {@link pageSql}, with the cursor of the next one (null: last). */
export function pageOf<R>(plan: ListPlan, rows: R[], toMemory: (row: R) => Memory): Page<Memory> {
  const items = (rows.length > plan.limit ? rows.slice(0, plan.limit) : rows).map(toMemory);
  const last = items[items.length - 1];
  const nextCursor =
    rows.length > plan.limit && last !== undefined
      ? encodeListCursor({ order: plan.order, direction: plan.direction, value: last[plan.order], id: last.id })
      : null;
  return { items, nextCursor };
}

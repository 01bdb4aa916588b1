const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/**
 * The calendar day of an ISO-8601 instant as words a query would use — `8 May 2023` (UTC) — so
 * "in May 2023" or "on 8 May" can match the day a memory was stated. Empty for null or an
 * unparsable value.
 */
export function dateWords(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '';
  const date = new Date(iso);
  const time = date.getTime();
  if (Number.isNaN(time)) return '';
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()] as string} ${date.getUTCFullYear()}`;
}

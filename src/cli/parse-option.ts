import { InvalidArgumentError } from 'commander';

/** Commander parser for a finite number. */
export function parseNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError(`'${value}' is not a number`);
  return n;
}

/** Commander parser for a comma-separated list. */
export function parseList(value: string): string[] {
  return value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}

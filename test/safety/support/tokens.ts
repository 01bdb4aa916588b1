/** Deterministic random-looking bodies for planted secrets (never live credentials). */
import { mulberry32 } from '../../../bench/lib/synthetic-corpus.js';

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `n` characters from `alphabet`, the same for the same seed. */
export function body(n: number, seed = 1, alphabet = ALNUM): string {
  const next = mulberry32(seed);
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(next() * alphabet.length)];
  return out;
}

/** A Luhn-valid number of `length` digits starting with `prefix`. */
export function luhnNumber(prefix: string, length: number, seed = 7): string {
  let digits = prefix + body(length - prefix.length - 1, seed, '0123456789');
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let n = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      n *= 2;
      if (n > 9) n -= 9;
    }
    sum += n;
  }
  digits += String((10 - (sum % 10)) % 10);
  return digits;
}

/**
 * True for the stand-ins documentation and people write where a real value would go:
 * `sk-...`, `xxxx`, `****`, `<token>`, `${API_KEY}`, `YOUR_API_KEY`, AWS's `…EXAMPLE` keys.
 * A secret that is a placeholder is not a secret, and masking it only hides useful text.
 */
export function looksLikePlaceholder(value: string): boolean {
  if (PLACEHOLDER.test(value)) return true;
  // A random key uses many distinct characters; `aaaa…` or `abcabc…` does not.
  return value.length >= 16 && distinctChars(value) < 6;
}

const PLACEHOLDER =
  /x{4}|\*{3}|\.{3}|…|^[<[{(]|\$\{|\{\{|%s|example|sample|placeholder|dummy|redacted|your[_-]|[_-]here\b|^(?:x+|\*+|_+|-+|\.+)$/i;

function distinctChars(value: string): number {
  return new Set(value).size;
}

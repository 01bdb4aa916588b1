/**
 * Turns untrusted memory text into one inert line for the context block.
 *
 * - Every character that is, or normalises (NFKC) to, `<` or `>`, and the common angle-bracket
 *   lookalikes that do not normalise (`‹ › 〈 〉 ⟨ ⟩ ˂ ˃ ᐸ ᐳ`), becomes an HTML-style entity, and
 *   `&` becomes `&amp;`. No tag of any name can therefore be opened or closed by memory text.
 * - Line breaks of every kind (`\r`, `\n`, `\v`, `\f`, U+0085, U+2028, U+2029) and the other C0/C1
 *   control characters become spaces, and runs of whitespace collapse to one space, so a memory
 *   is always exactly one line: it cannot start a fake `- ` item, a `## ` header, or a
 *   `Human:` / `system:` turn of its own.
 * - Bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069) are removed so text
 *   cannot visually reorder the block.
 */
export function sanitizeMemoryText(text: string): string {
  let out = '';
  for (const ch of text) {
    out += mapChar(ch);
  }
  return out.replace(/[ \t]+/g, ' ').trim();
}

const LOOKALIKE_OPEN = new Set([
  '\u2039',
  '\u2329',
  '\u3008',
  '\u27e8',
  '\u02c2',
  '\u1438',
  '\u276e',
  '\u2770',
  '\u29fc',
]);
const LOOKALIKE_CLOSE = new Set([
  '\u203a',
  '\u232a',
  '\u3009',
  '\u27e9',
  '\u02c3',
  '\u1433',
  '\u276f',
  '\u2771',
  '\u29fd',
]);

function entity(ch: string): string {
  return `&#x${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase()};`;
}

function mapChar(ch: string): string {
  switch (ch) {
    case '&':
      return '&amp;';
    case '<':
      return '&lt;';
    case '>':
      return '&gt;';
    default:
      break;
  }
  const code = ch.codePointAt(0) ?? 0;
  // C0 controls (tab kept as a space), DEL, C1 controls, line / paragraph separators.
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029) return ' ';
  // Bidi embeddings / overrides / isolates.
  if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) return '';
  if (code < 0x80) return ch;
  if (LOOKALIKE_OPEN.has(ch) || LOOKALIKE_CLOSE.has(ch)) return entity(ch);
  const normalised = ch.normalize('NFKC');
  if (normalised !== ch && (normalised.includes('<') || normalised.includes('>'))) return entity(ch);
  return ch;
}

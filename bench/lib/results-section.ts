import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * Writes `markdown` as the section `name` of a results file shared by several benches: the text
 * between `<!-- section:name -->` and `<!-- /section:name -->` is replaced (or the section is
 * appended), the other benches' sections stay as they are.
 */
export function writeResultsSection(file: string, name: string, markdown: string): void {
  const open = `<!-- section:${name} -->`;
  const close = `<!-- /section:${name} -->`;
  const block = `${open}\n${markdown.trim()}\n${close}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  const next =
    start >= 0 && end > start
      ? `${text.slice(0, start)}${block}${text.slice(end + close.length)}`
      : `${text.trimEnd()}${text.trim() === '' ? '' : '\n\n'}${block}\n`;
  writeFileSync(file, next);
}

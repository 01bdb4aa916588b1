import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './inspector-fixture.js';

const WEB_SRC = join(REPO_ROOT, 'web', 'src');
const sources = readdirSync(WEB_SRC)
  .filter((name) => /\.(ts|css|html)$/.test(name))
  .map((name) => ({ name, text: readFileSync(join(WEB_SRC, name), 'utf8') }))
  .concat([{ name: 'index.html', text: readFileSync(join(REPO_ROOT, 'web', 'index.html'), 'utf8') }]);

/** Rules of the inspector's sources that the browser tests cannot see on every path. */
describe('web/ source rules', () => {
  it('has sources to check', () => {
    expect(sources.map((s) => s.name)).toEqual(
      expect.arrayContaining(['main.ts', 'dom.ts', 'index.html', 'styles.css']),
    );
  });

  it('never parses strings as HTML (memory text is untrusted)', () => {
    const html =
      /\b(innerHTML|outerHTML|insertAdjacentHTML|createContextualFragment|DOMParser|document\.write|srcdoc)\b/;
    expect(sources.filter((s) => html.test(s.text)).map((s) => s.name)).toEqual([]);
  });

  it('loads nothing from another origin (no CDN, no web fonts) and has no inline script or style', () => {
    const remote = /\b(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i;
    expect(sources.filter((s) => remote.test(s.text)).map((s) => s.name)).toEqual([]);
    expect(sources.filter((s) => /@import|@font-face/.test(s.text)).map((s) => s.name)).toEqual([]);
    const index = sources.find((s) => s.name === 'index.html')?.text ?? '';
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(index).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
  });

  it('does not log to the console', () => {
    expect(sources.filter((s) => /\bconsole\./.test(s.text)).map((s) => s.name)).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One fenced code block of a Markdown file. */
export interface CodeBlock {
  /** Path of the file, as given. */
  file: string;
  /** 1-based position among the file's code blocks. */
  index: number;
  /** The info string's first word (`ts`, `sh`, …), or '' for a bare fence. */
  lang: string;
  /** Line of the opening fence (1-based). */
  line: number;
  /** The heading the block sits under ('' before the first heading). */
  heading: string;
  code: string;
}

/** The fenced code blocks (``` or ~~~, CommonMark rules for the closing fence) of a Markdown text. */
export function codeBlocksOf(file: string, markdown: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] as string;
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/.exec(text);
    if (open === null) {
      const title = /^#{1,6}\s+(.*)$/.exec(text);
      if (title !== null) heading = (title[1] as string).trim();
      continue;
    }
    const fence = open[1] as string;
    const body: string[] = [];
    let j = i + 1;
    const closes = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    while (j < lines.length && !closes.test(lines[j] as string)) body.push(lines[j++] as string);
    blocks.push({
      file,
      index: blocks.length + 1,
      lang: open[2] as string,
      line: i + 1,
      heading,
      code: body.join('\n') + '\n',
    });
    i = j;
  }
  return blocks;
}

/** The code blocks of the Markdown file `file` (relative to `root`, and named so in the blocks). */
export function codeBlocks(root: string, file: string): CodeBlock[] {
  return codeBlocksOf(file, readFileSync(join(root, file), 'utf8'));
}

import { readFile } from 'node:fs/promises';
import { EngramError, isEngramError } from '../model/errors.js';

/** A transcript read from JSONL: the turn objects, and the line each came from. */
export interface Transcript {
  turns: unknown[];
  /** 1-based line number of each turn. */
  lines: number[];
}

async function readSource(file: string): Promise<string> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
  try {
    return await readFile(file, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new EngramError('INVALID_INPUT', `cannot read ${file}: ${code ?? (cause as Error).message}`, {
      cause,
      details: { field: 'transcript', file },
    });
  }
}

/**
 * Reads a transcript: JSONL, one turn per line (`{"role": "user", "text": "…", "speaker"?,
 * "session"?, "messageId"?, "occurredAt"?}`, `content` accepted for `text`), blank lines ignored,
 * `-` for stdin. A line that is not JSON is `INVALID_INPUT` naming the line; the turns themselves
 * are checked by `remember`, whose errors {@link atLine} points at the line.
 */
export async function readTranscript(file: string): Promise<Transcript> {
  const text = await readSource(file);
  const turns: unknown[] = [];
  const lines: number[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    try {
      turns.push(JSON.parse(line) as unknown);
    } catch (cause) {
      throw new EngramError('INVALID_INPUT', `line ${i + 1} of ${file} is not JSON: ${(cause as Error).message}`, {
        cause,
        details: { field: 'transcript', line: i + 1 },
      });
    }
    lines.push(i + 1);
  });
  return { turns, lines };
}

/** The same error (same code), its message naming the transcript line of `messages[i]`. */
export function atLine(error: unknown, transcript: Transcript): unknown {
  if (!isEngramError(error)) return error;
  const field = typeof error.details.field === 'string' ? error.details.field : '';
  const match = /^messages\[(\d+)\]/.exec(field);
  const line = match ? transcript.lines[Number(match[1])] : undefined;
  if (line === undefined) return error;
  return new EngramError(error.code, `line ${line}: ${error.message}`, {
    cause: error,
    isRetryable: error.isRetryable,
    details: { ...error.details, line },
  });
}

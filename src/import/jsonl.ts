import { createReadStream } from 'node:fs';

import { EngramError, isEngramError } from '../model/errors.js';
import type { MemoryInput } from '../model/memory.js';
import { parseMemoryInput } from './memory-input.js';

/** One parsed line of a JSONL file. */
export interface JsonlRecord {
  /** 1-based line number in the file. */
  line: number;
  input: MemoryInput;
}

/** Options of {@link readJsonl}. */
export interface ReadJsonlOptions {
  signal?: AbortSignal | undefined;
}

const NEWLINE = 0x0a;

/**
 * Streams raw lines (without the trailing `\n` / `\r\n`) with their 1-based numbers.
 * Each line is decoded as strict UTF-8, so a bad byte sequence is reported with its line.
 */
async function* readLines(file: string, signal?: AbortSignal): AsyncGenerator<{ line: number; text: string }> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const stream = createReadStream(file, signal === undefined ? {} : { signal });
  let pending: Buffer[] = [];
  let line = 0;
  const decode = (bytes: Buffer, n: number): string => {
    let end = bytes.length;
    if (end > 0 && bytes[end - 1] === 0x0d) end -= 1;
    try {
      return decoder.decode(bytes.subarray(0, end));
    } catch (cause) {
      throw new EngramError('INVALID_INPUT', `${file}: line ${n}: is not valid UTF-8`, {
        cause,
        details: { file, line: n },
      });
    }
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      let nl = chunk.indexOf(NEWLINE, start);
      while (nl !== -1) {
        pending.push(chunk.subarray(start, nl));
        line += 1;
        yield { line, text: decode(Buffer.concat(pending), line) };
        pending = [];
        start = nl + 1;
        nl = chunk.indexOf(NEWLINE, start);
      }
      if (start < chunk.length) pending.push(chunk.subarray(start));
    }
  } catch (cause) {
    if (isEngramError(cause)) throw cause;
    throw new EngramError('INVALID_INPUT', `cannot read ${file}: ${(cause as Error).message}`, {
      cause,
      details: { file },
    });
  }
  if (pending.length > 0) {
    line += 1;
    yield { line, text: decode(Buffer.concat(pending), line) };
  }
}

/**
 * Stream-parses a JSONL file of {@link MemoryInput} objects, one per line; blank lines are
 * skipped and a UTF-8 BOM is ignored. A bad line stops the stream with
 * `EngramError('INVALID_INPUT')` whose message names the file, the line and the field,
 * e.g. `memories.jsonl: line 12.tags[1]: expected a string, got number 3`.
 */
export async function* readJsonl(file: string, options: ReadJsonlOptions = {}): AsyncGenerator<JsonlRecord> {
  for await (const { line, text } of readLines(file, options.signal)) {
    const body = line === 1 ? text.replace(/^\uFEFF/, '') : text;
    if (body.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (cause) {
      throw new EngramError('INVALID_INPUT', `${file}: line ${line}: invalid JSON: ${(cause as Error).message}`, {
        cause,
        details: { file, line },
      });
    }
    try {
      yield { line, input: parseMemoryInput(value, `line ${line}`) };
    } catch (error) {
      if (isEngramError(error, 'INVALID_INPUT')) {
        throw new EngramError('INVALID_INPUT', `${file}: ${error.message}`, {
          cause: error,
          details: { ...error.details, file, line },
        });
      }
      throw error;
    }
  }
}

/** Groups {@link readJsonl} records into batches of at most `batchSize`. */
export async function* readJsonlBatches(
  file: string,
  batchSize: number,
  options: ReadJsonlOptions = {},
): AsyncGenerator<JsonlRecord[]> {
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    throw new EngramError('INVALID_LIMIT', `batchSize must be a positive integer, got ${String(batchSize)}`);
  }
  let batch: JsonlRecord[] = [];
  for await (const record of readJsonl(file, options)) {
    batch.push(record);
    if (batch.length >= batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** Options of {@link importJsonl}. */
export interface ImportJsonlOptions extends ReadJsonlOptions {
  /** Memories per `addBatch` call (each call is all-or-nothing in the store). @default 256 */
  batchSize?: number | undefined;
  /**
   * Read and check the whole file before writing anything, so a bad line (or an id used
   * twice) on line 90,000 leaves the store untouched. Costs one extra streaming pass.
   * @default true
   */
  validateFirst?: boolean | undefined;
  /**
   * Resumes an interrupted import: called with each batch's ids, it answers those already
   * stored, and their lines are skipped. Every line then needs an `id` (with `validateFirst`,
   * checked before anything is written). @default none (every line is added)
   */
  storedIds?: ((ids: string[]) => Promise<ReadonlySet<string>>) | undefined;
  /** Called after each batch with the running counts and the total (when known). */
  onProgress?: ((imported: number, total: number | null, skipped: number) => void) | undefined;
}

/** Outcome of {@link importJsonl}. */
export interface ImportJsonlResult {
  /** Memories handed to `addBatch` and acknowledged. */
  imported: number;
  /** Lines skipped because `storedIds` reported their id as stored. */
  skipped: number;
  /** `addBatch` calls made. */
  batches: number;
  /** Last line number read. */
  lines: number;
}

function missingId(file: string, line: number): EngramError {
  return new EngramError('INVALID_INPUT', `${file}: line ${line}.id: resuming needs an id on every line`, {
    details: { file, line },
  });
}

/** The checking pass of {@link importJsonl}: every line valid, ids unique; returns the line count. */
async function checkFile(file: string, options: ImportJsonlOptions): Promise<number> {
  const ids = new Map<string, number>();
  let total = 0;
  for await (const { line, input } of readJsonl(file, options)) {
    total += 1;
    if (input.id === undefined) {
      if (options.storedIds !== undefined) throw missingId(file, line);
      continue;
    }
    const first = ids.get(input.id);
    if (first !== undefined) {
      throw new EngramError(
        'INVALID_INPUT',
        `${file}: line ${line}.id: id ${JSON.stringify(input.id)} already used on line ${first}`,
        { details: { file, line, firstLine: first, id: input.id } },
      );
    }
    ids.set(input.id, line);
  }
  return total;
}

/** The records of a batch whose ids `storedIds` does not report (all of them without it). */
async function unstored(file: string, batch: JsonlRecord[], options: ImportJsonlOptions): Promise<JsonlRecord[]> {
  if (options.storedIds === undefined) return batch;
  const ids: string[] = [];
  for (const { line, input } of batch) {
    if (input.id === undefined) throw missingId(file, line);
    ids.push(input.id);
  }
  const stored = await options.storedIds(ids);
  return batch.filter(({ input }) => !stored.has(input.id as string));
}

/**
 * Imports a JSONL file through `addBatch` (typically `inputs => engram.addMany(inputs, {scope})`),
 * one batch at a time. With `validateFirst` (the default) nothing is written unless every line
 * is valid and ids are unique within the file. If `addBatch` itself fails, the error is
 * re-thrown with the same code, naming the line range of the failed batch and how many
 * memories earlier batches already stored (`details.imported`); with `storedIds`, running the
 * same import again skips what was stored and adds the rest.
 */
export async function importJsonl(
  file: string,
  addBatch: (inputs: MemoryInput[]) => Promise<unknown>,
  options: ImportJsonlOptions = {},
): Promise<ImportJsonlResult> {
  const batchSize = options.batchSize ?? 256;
  const total = (options.validateFirst ?? true) ? await checkFile(file, options) : null;
  let imported = 0;
  let skipped = 0;
  let batches = 0;
  let lines = 0;
  for await (const batch of readJsonlBatches(file, batchSize, options)) {
    const firstLine = (batch[0] as JsonlRecord).line;
    const lastLine = (batch[batch.length - 1] as JsonlRecord).line;
    let fresh: JsonlRecord[] = [];
    try {
      fresh = await unstored(file, batch, options);
      if (fresh.length > 0) await addBatch(fresh.map((r) => r.input));
    } catch (error) {
      const code = isEngramError(error) ? error.code : 'STORE_ERROR';
      const message = error instanceof Error ? error.message : String(error);
      throw new EngramError(
        code,
        `${file}: lines ${firstLine}-${lastLine}: batch rejected (${imported} memories from earlier batches were stored): ${message}`,
        {
          cause: error,
          isRetryable: isEngramError(error) ? error.isRetryable : false,
          details: { ...(isEngramError(error) ? error.details : {}), file, firstLine, lastLine, imported },
        },
      );
    }
    imported += fresh.length;
    skipped += batch.length - fresh.length;
    if (fresh.length > 0) batches += 1;
    lines = lastLine;
    options.onProgress?.(imported, total, skipped);
  }
  return { imported, skipped, batches, lines };
}

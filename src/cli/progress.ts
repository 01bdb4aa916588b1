import cliProgress from 'cli-progress';

/** Progress of a long command, shown on stderr. */
export interface Progress {
  update(done: number, total: number | null): void;
  stop(): void;
}

/** Options of {@link createProgress}. */
export interface ProgressOptions {
  /** Where progress goes. @default process.stderr */
  stream?: NodeJS.WriteStream | undefined;
  /** Least time between two progress lines when the stream is not a terminal. @default 1000 */
  intervalMs?: number | undefined;
}

function formatLine(label: string, done: number, total: number | null, rate: number): string {
  const share = total !== null && total > 0 ? ` (${((100 * done) / total).toFixed(1)}%)` : '';
  return `${label} ${done}${total === null ? '' : `/${total}`}${share} ${Math.round(rate)}/s\n`;
}

/**
 * Lines for logs and CI when the stream is not a terminal: the first update, then at most one
 * every `intervalMs`, and the last state on stop, e.g. `import 512/2000 (25.6%) 830/s`.
 */
function createLineProgress(label: string, stream: NodeJS.WriteStream, intervalMs: number): Progress {
  const started = performance.now();
  let lastPrinted = -Infinity;
  let pending: string | null = null;
  return {
    update(done, total) {
      const now = performance.now();
      pending = formatLine(label, done, total, done / Math.max((now - started) / 1000, 1e-3));
      if (now - lastPrinted >= intervalMs || (total !== null && done >= total)) {
        stream.write(pending);
        pending = null;
        lastPrinted = now;
      }
    },
    stop() {
      if (pending !== null) stream.write(pending);
      pending = null;
    },
  };
}

/**
 * Progress on stderr: a bar on a terminal, lines otherwise (see {@link createLineProgress}),
 * nothing with `quiet`.
 */
export function createProgress(label: string, quiet = false, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  if (quiet) return { update: () => undefined, stop: () => undefined };
  if (!stream.isTTY) return createLineProgress(label, stream, options.intervalMs ?? 1000);
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total} {percentage}% | {eta_formatted} left`, stream },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total ?? done, done);
        started = true;
      } else {
        if (total !== null) bar.setTotal(total);
        bar.update(done);
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

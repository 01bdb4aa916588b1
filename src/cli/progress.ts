import cliProgress from 'cli-progress';

/** A progress bar on stderr (silent when stderr is not a terminal or when `quiet`). */
export function createProgress(label: string, quiet = false): { update(done: number, total: number | null): void; stop(): void } {
  if (quiet || !process.stderr.isTTY) {
    return { update: () => undefined, stop: () => undefined };
  }
  const bar = new cliProgress.SingleBar(
    { format: `${label} [{bar}] {value}/{total} {percentage}% | {eta_formatted} left`, stream: process.stderr },
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

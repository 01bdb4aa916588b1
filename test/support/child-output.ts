import type { ChildProcess } from 'node:child_process';

/** How a child process ended, with everything it printed. */
export interface ChildEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** What a spawned child prints, collected as it prints it. */
export interface ChildOutput {
  stdout(): string;
  stderr(): string;
  /** Resolves once every process holding the child's output pipes is gone ('close'). */
  closed: Promise<ChildEnd>;
  /** Resolves with the match once stdout matches `pattern`; rejects when the output closes first. */
  printed(pattern: RegExp): Promise<RegExpExecArray>;
}

/** The line `engram serve` prints once it accepts requests. */
const LISTENING = /Engram listening on (http:\/\/\S+)/;

/** Collects a spawned child's stdout and stderr (`what` names it in errors). */
export function watchOutput(child: ChildProcess, what = 'the process'): ChildOutput {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const closed = new Promise<ChildEnd>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  const printed = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(stdout);
        if (!match) return;
        child.stdout?.off('data', check);
        resolve(match);
      };
      check();
      // Registered after the collector above, so `stdout` already holds the chunk.
      child.stdout?.on('data', check);
      void closed.then(() => {
        child.stdout?.off('data', check);
        reject(new Error(`${what} ended before printing ${String(pattern)}:\n${stdout}\n${stderr}`));
      });
    });
  return { stdout: () => stdout, stderr: () => stderr, closed, printed };
}

/** Resolves with the server's URL once it printed `Engram listening on <url>`; rejects when it ends first. */
export async function listeningUrl(output: ChildOutput): Promise<string> {
  return (await output.printed(LISTENING))[1] as string;
}

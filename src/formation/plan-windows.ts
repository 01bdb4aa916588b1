import type { Scope } from '../model/scope.js';
import type { ExtractionTurn, ExtractionWindow } from './extraction-window.js';
import type { WindowLimits } from './extractor.js';

/** The default token estimate of windows: one token per four characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A turn to window: an extraction turn and its session. */
export interface WindowTurn extends ExtractionTurn {
  session: string | null;
}

/** Options of {@link planWindows}. */
export interface PlanWindowsOptions {
  scope: Scope;
  /** The extractor's limits (`Extractor.limits`). */
  limits: WindowLimits;
  /** @default 0 */
  timezoneOffsetMinutes?: number | undefined;
  /** Token estimate of a text; keep the extractor's (LLM extractors check windows with {@link estimateTokens}). @default estimateTokens */
  countTokens?: ((text: string) => number) | undefined;
}

/**
 * Cuts a conversation (turns in the order they were said) into extraction windows: consecutive
 * turns of one session, at most `limits.maxTurns` turns and `limits.maxTokens` tokens each. A
 * turn larger than the token budget gets a window of its own rather than being split or dropped.
 * Deterministic: the same turns always give the same windows, so window keys are stable.
 */
export function planWindows(turns: WindowTurn[], options: PlanWindowsOptions): ExtractionWindow[] {
  const count = options.countTokens ?? estimateTokens;
  const { maxTurns, maxTokens } = options.limits;
  const windows: ExtractionWindow[] = [];
  let current: WindowTurn[] = [];
  let tokens = 0;
  const flush = (): void => {
    if (current.length === 0) return;
    windows.push({
      scope: options.scope,
      session: current[0]?.session ?? null,
      turns: current.map(({ id, role, speaker, text, occurredAt }) => ({ id, role, speaker, text, occurredAt })),
      timezoneOffsetMinutes: options.timezoneOffsetMinutes,
    });
    current = [];
    tokens = 0;
  };
  for (const turn of turns) {
    const size = count(turn.text);
    const sessionChanged = current.length > 0 && current[0]?.session !== turn.session;
    if (sessionChanged || current.length >= maxTurns || (current.length > 0 && tokens + size > maxTokens)) flush();
    current.push(turn);
    tokens += size;
  }
  flush();
  return windows;
}

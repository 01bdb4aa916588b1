/** Lexical weights of the fusion; the dense weight is always `1 − lexical`. */
export interface LexicalWeights {
  /** For queries of more than {@link SHORT_QUERY_TOKENS} tokens. @default 0.15 */
  base: number;
  /** For queries of at most {@link SHORT_QUERY_TOKENS} tokens. @default 0.30 */
  short: number;
}

export const DEFAULT_LEXICAL_WEIGHTS: LexicalWeights = { base: 0.15, short: 0.3 };
export const LEXICAL_WEIGHT_MIN = 0.05;
export const LEXICAL_WEIGHT_MAX = 0.4;
/** Queries with at most this many tokens after stopwords count as short. */
export const SHORT_QUERY_TOKENS = 2;

export const LEX_WEIGHT_ENV = 'ENGRAM_RECALL_LEX_WEIGHT';
export const LEX_WEIGHT_SHORT_ENV = 'ENGRAM_RECALL_LEX_WEIGHT_SHORT';

function parse(value: string | number | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Where lexical weights come from, highest precedence first. */
export interface LexicalWeightSources {
  option?: Partial<LexicalWeights> | undefined;
  config?: Partial<LexicalWeights> | undefined;
  env?: Record<string, string | undefined> | undefined;
}

/**
 * Resolves the weights: an explicit option wins, then the config value, then the environment
 * (`ENGRAM_RECALL_LEX_WEIGHT`, `ENGRAM_RECALL_LEX_WEIGHT_SHORT`), then the defaults. Every source is
 * clamped to [0.05, `max`] so both signals always take part; unparsable values are ignored.
 * Read on every call (no caching), so a changed environment takes effect at once. The reference
 * recall uses the reference defaults and `max` 0.40; a profile may bring its own.
 */
export function resolveLexicalWeights(
  sources: LexicalWeightSources = {},
  profile: { defaults?: LexicalWeights; max?: number } = {},
): LexicalWeights {
  const env = sources.env ?? {};
  const defaults = profile.defaults ?? DEFAULT_LEXICAL_WEIGHTS;
  const max = profile.max ?? LEXICAL_WEIGHT_MAX;
  const pick = (key: keyof LexicalWeights, envKey: string): number =>
    Math.min(
      max,
      Math.max(
        LEXICAL_WEIGHT_MIN,
        parse(sources.option?.[key]) ?? parse(sources.config?.[key]) ?? parse(env[envKey]) ?? defaults[key],
      ),
    );
  return { base: pick('base', LEX_WEIGHT_ENV), short: pick('short', LEX_WEIGHT_SHORT_ENV) };
}

/** The lexical weight for a query of `tokenCount` tokens (after stopwords). */
export function lexicalWeightFor(tokenCount: number, weights: LexicalWeights): number {
  return tokenCount <= SHORT_QUERY_TOKENS ? weights.short : weights.base;
}

import type { ListRequest, RecallOptions, RecallProfile, RequestFilter } from './api.js';
import { EngramError } from './errors.js';
import type { SearchMode, SearchOptions } from './search-options.js';

/** Names of the recall fusion profiles. */
export const RECALL_PROFILE_NAMES = ['engram', 'seed'] as const satisfies readonly RecallProfile[];

/** Names of the search modes. */
export const SEARCH_MODES = ['fast', 'fine', 'deep'] as const satisfies readonly SearchMode[];

/** Most deep-search stages one search may ask for (`deepStages`). */
export const MAX_DEEP_STAGES = 5;
/** Most collections one search may name. */
export const MAX_SEARCH_COLLECTIONS = 32;
/** Most earlier turns one search may hand the fine planner (`conversation`). */
export const MAX_CONVERSATION_MESSAGES = 64;

/**
 * Where each search option can come from. `wire`: every entry point (library, REST body, MCP
 * tool, `RemoteEngram`); `scope`: every entry point, in its own shape (a REST `scope` object,
 * flat MCP arguments, CLI flags); `local`: in-process only (`sequential` is a benchmark switch,
 * `signal` an in-process object). The `satisfies` makes a new option fail to compile until it
 * is placed here. `http`: the REST body and `RemoteEngram` only (a precomputed vector: MCP tools
 * are called by language models, which send text).
 */
const SEARCH_OPTION_REACH = {
  scope: 'scope',
  mode: 'wire',
  topK: 'wire',
  bucketLimits: 'wire',
  types: 'wire',
  paths: 'wire',
  internet: 'wire',
  reranker: 'wire',
  collections: 'wire',
  threshold: 'wire',
  priority: 'wire',
  boost: 'wire',
  fastGraph: 'wire',
  fulltext: 'wire',
  decompose: 'wire',
  reason: 'wire',
  deepStages: 'wire',
  deepRewrite: 'wire',
  nearDuplicateThreshold: 'wire',
  mmrLambda: 'wire',
  dedupe: 'wire',
  context: 'wire',
  conversation: 'wire',
  vector: 'http',
  includeFlagged: 'wire',
  asOf: 'wire',
  includeSuperseded: 'wire',
  sequential: 'local',
  signal: 'local',
} as const satisfies Record<keyof SearchOptions, 'wire' | 'http' | 'scope' | 'local'>;

type Reach = typeof SEARCH_OPTION_REACH;

/** Names of the search options that travel over the wire. */
export type WireSearchOptionName = { [K in keyof Reach]: Reach[K] extends 'wire' ? K : never }[keyof Reach];

/** Every search option that travels over the wire, in one list (REST schema, MCP tool, client). */
export const WIRE_SEARCH_OPTION_NAMES = Object.freeze(
  (Object.keys(SEARCH_OPTION_REACH) as Array<keyof Reach>).filter(
    (k): k is WireSearchOptionName => SEARCH_OPTION_REACH[k] === 'wire',
  ),
);

/** The search options a remote caller sends: the same meaning and defaults as {@link SearchOptions}. */
export type WireSearchOptions = Pick<SearchOptions, WireSearchOptionName>;

/** What `RemoteEngram.search` accepts: the wire options, a precomputed query vector, the scope, and an abort signal. */
export type RemoteSearchOptions = WireSearchOptions & Pick<SearchOptions, 'scope' | 'signal' | 'vector'>;

/** Every search option name (for the unknown-field check). */
export const SEARCH_OPTION_NAMES: readonly string[] = Object.freeze(Object.keys(SEARCH_OPTION_REACH));

const RECALL_OPTIONS = {
  scope: true,
  limit: true,
  threshold: true,
  profile: true,
  types: true,
  lexicalWeight: true,
  lexicalWeightShort: true,
  vector: true,
  includeFlagged: true,
  asOf: true,
  includeSuperseded: true,
  signal: true,
} as const satisfies Record<keyof RecallOptions, true>;

/** Every recall option name. */
export const RECALL_OPTION_NAMES: readonly string[] = Object.freeze(Object.keys(RECALL_OPTIONS));

const FILTER_FIELDS = {
  scope: true,
  types: true,
  statuses: true,
  tags: true,
  key: true,
  ids: true,
} as const satisfies Record<keyof RequestFilter | 'scope', true>;

/** Every field of a stats request (a filter). */
export const FILTER_FIELD_NAMES: readonly string[] = Object.freeze(Object.keys(FILTER_FIELDS));

const LIST_FIELDS = {
  ...FILTER_FIELDS,
  limit: true,
  cursor: true,
  order: true,
  direction: true,
} as const satisfies Record<keyof ListRequest, true>;

/** Every field of a list request. */
export const LIST_REQUEST_FIELD_NAMES: readonly string[] = Object.freeze(Object.keys(LIST_FIELDS));

/**
 * Throws INVALID_INPUT naming the first field of `value` that is not in `known`: a misspelt or
 * misplaced option (`limit` on a search, whose size is `topK`) is a mistake, never ignored.
 * Fields set to `undefined` count as absent.
 */
export function rejectUnknownFields(value: object, known: readonly string[], what: string): void {
  for (const [key, v] of Object.entries(value)) {
    if (v !== undefined && !known.includes(key)) {
      throw new EngramError('INVALID_INPUT', `${key} is not a ${what} option (known: ${known.join(', ')})`, {
        details: { field: key },
      });
    }
  }
}

import type { FactKind } from './fact-kind.js';

/** One first-person statement the rule-based extractor recognises. */
export interface FirstPersonRule {
  name: string;
  kind: FactKind;
  /** Anchored at the start of a clause; the named group `v` is the value, other groups help `text`. */
  pattern: RegExp;
  /** Words that end the value (besides the shared clause ends), e.g. ` at ` after "works as". */
  stops?: string[];
  /** The value names several items ("peanuts and shellfish"): one candidate each. */
  list?: boolean;
  key: (value: string, groups: Record<string, string | undefined>) => string;
  text: (subject: string, value: string, groups: Record<string, string | undefined>) => string;
}

const ARTICLES = /^(?:a|an|the|my|to|some)\s+/i;

/** `Tree Nuts!` → `tree_nuts`: the value part of a key. */
export function slug(value: string): string {
  return value
    .normalize('NFKC')
    .toLowerCase()
    .replace(ARTICLES, '')
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64);
}

const I_AM = "i(?:'m|’m| am)";
/** "I" or "I'm" / "I am" ("I live in", "I'm living in"). */
const I_MAYBE_AM = "i(?:'m|’m| am)?";
const I_HAVE = "i(?:'ve|’ve| have)?";
const ADVERB = '(?:(?:just|recently|finally|currently|now|still|also|really|actually|absolutely)\\s+)*';

const THIRD_PERSON: Record<string, string> = {
  love: 'loves',
  like: 'likes',
  enjoy: 'enjoys',
  prefer: 'prefers',
  hate: 'hates',
  dislike: 'dislikes',
  adore: 'adores',
  "can't stand": "can't stand",
  'cannot stand': "can't stand",
  "don't like": "doesn't like",
  'do not like': "doesn't like",
};

/** The rules, tried in order on each clause; the first that matches wins. */
export const FIRST_PERSON_RULES: readonly FirstPersonRule[] = [
  {
    name: 'residence',
    kind: 'user_fact',
    pattern: new RegExp(`^${I_MAYBE_AM}\\s+${ADVERB}(?:live|living|based|residing|reside)\\s+in\\s+(?<v>.+)$`, 'iu'),
    key: () => 'user.residence',
    text: (s, v) => `${s} lives in ${v}`,
  },
  {
    name: 'moved',
    kind: 'user_fact',
    pattern: new RegExp(`^${I_HAVE}\\s*${ADVERB}(?:moved|relocated)\\s+to\\s+(?<v>.+)$`, 'iu'),
    key: () => 'user.residence',
    text: (s, v) => `${s} moved to ${v}`,
  },
  {
    name: 'allergy-ended',
    kind: 'user_fact',
    pattern: new RegExp(`^${I_AM}\\s+${ADVERB}(?<neg>no longer|not)\\s+allergic\\s+to\\s+(?<v>.+)$`, 'iu'),
    list: true,
    key: (v) => `user.allergy.${slug(v)}`,
    text: (s, v, g) => `${s} is ${(g.neg ?? 'not').toLowerCase()} allergic to ${v}`,
  },
  {
    name: 'allergy',
    kind: 'user_fact',
    pattern: new RegExp(`^${I_AM}\\s+${ADVERB}(?:(?:very|severely|mildly)\\s+)?allergic\\s+to\\s+(?<v>.+)$`, 'iu'),
    list: true,
    key: (v) => `user.allergy.${slug(v)}`,
    text: (s, v) => `${s} is allergic to ${v}`,
  },
  {
    name: 'favourite',
    kind: 'preference',
    pattern:
      /^my\s+(?:all-time\s+|absolute\s+)?favou?rite\s+(?<what>[\p{L}\p{N} -]+?)\s+(?:is|are|has to be)\s+(?<v>.+)$/iu,
    key: (_v, g) => `user.favourite.${slug(g.what ?? '')}`,
    text: (s, v, g) => `${s}'s favourite ${(g.what ?? '').toLowerCase()} is ${v}`,
  },
  {
    name: 'job-title',
    kind: 'user_fact',
    pattern: new RegExp(`^${I_MAYBE_AM}\\s+${ADVERB}work(?:ing)?\\s+as\\s+(?<v>.+)$`, 'iu'),
    stops: [' at ', ' for ', ' in '],
    key: () => 'user.job_title',
    text: (s, v) => `${s} works as ${v}`,
  },
  {
    name: 'employer-started',
    kind: 'user_fact',
    pattern: new RegExp(
      `^${I_HAVE}\\s*${ADVERB}(?:started|began|begun)\\s+(?:a\\s+new\\s+job|working)\\s+(?:at|for|with)\\s+(?<v>.+)$`,
      'iu',
    ),
    stops: [' as '],
    key: () => 'user.employer',
    text: (s, v) => `${s} started working at ${v}`,
  },
  {
    name: 'employer-quit',
    kind: 'user_fact',
    pattern: new RegExp(
      `^${I_HAVE}\\s*${ADVERB}(?:quit|left)\\s+(?:my\\s+job\\s+(?:at|with)|working\\s+(?:at|for))\\s+(?<v>.+)$`,
      'iu',
    ),
    key: () => 'user.employer',
    text: (s, v) => `${s} quit the job at ${v}`,
  },
  {
    name: 'employer',
    kind: 'user_fact',
    pattern: new RegExp(`^${I_MAYBE_AM}\\s+${ADVERB}work(?:ing)?\\s+(?:at|for)\\s+(?<v>.+)$`, 'iu'),
    stops: [' as '],
    key: () => 'user.employer',
    text: (s, v) => `${s} works at ${v}`,
  },
  {
    name: 'activity',
    kind: 'user_fact',
    pattern: new RegExp(
      `^${I_HAVE}\\s*${ADVERB}(?<verb>started|quit|stopped|gave up|took up)\\s+(?<v>\\p{L}+ing\\b.*)$`,
      'iu',
    ),
    key: (v) => `user.activity.${slug(v.split(/\s+/)[0] ?? v)}`,
    text: (s, v, g) => `${s} ${(g.verb ?? '').toLowerCase()} ${v}`,
  },
  {
    name: 'preference',
    kind: 'preference',
    pattern: new RegExp(
      `^i\\s+${ADVERB}(?<verb>love|like|enjoy|prefer|hate|dislike|adore|can't stand|cannot stand|don't like|do not like)\\s+(?<v>.+)$`,
      'iu',
    ),
    list: true,
    stops: [' over ', ' rather than ', ' more than '],
    key: (v) => `user.preference.${slug(v)}`,
    text: (s, v, g) => `${s} ${THIRD_PERSON[(g.verb ?? '').toLowerCase().replace('’', "'")] ?? g.verb} ${v}`,
  },
  {
    name: 'name',
    kind: 'user_fact',
    pattern: /^my\s+name\s+is\s+(?<v>.+)$/iu,
    key: () => 'user.name',
    text: (s, v) => (s === 'The user' ? `The user's name is ${v}` : `${s}'s name is ${v}`),
  },
];

import type { Candidate, Dropped, ExtractorInfo } from './candidate.js';
import type { ExtractionTurn, ExtractionWindow } from './extraction-window.js';
import type { ExtractionResult, Extractor, WindowLimits } from './extractor.js';
import { finishCandidate } from './finish-candidate.js';
import { FIRST_PERSON_RULES, type FirstPersonRule } from './first-person-rules.js';
import { NO_USAGE } from './llm-usage.js';
import { findDateInText, firstDateIndex } from './resolve-date.js';

/** Options of {@link createRuleExtractor}. */
export interface RuleExtractorOptions {
  /** Confidence given to every rule-based candidate. @default 0.6 */
  confidence?: number | undefined;
  /** @default { maxTurns: 200, maxTokens: 50000 } (no model call: windows can be large) */
  limits?: WindowLimits | undefined;
}

const LEAD =
  /^(?:(?:well|oh|so|actually|also|btw|by the way|and|but|now|yes|yeah|ok|okay|anyway|guess what|fun fact)[,!:]?\s+)+/iu;
const CLAUSE_SPLIT = /\s*[;:]\s*|,?\s+(?:and|but|so)\s+(?=I\b)|,\s+(?=I\b)/u;
const VALUE_ENDS = [
  ' and ',
  ' or ',
  ' but ',
  ' because ',
  ' so ',
  ' which ',
  ' who ',
  ' where ',
  ' when ',
  ' since ',
  ' although ',
  ' though ',
  ' while ',
  ' if ',
  ', and',
  ', but',
  ', which',
  ', because',
];
const TRAILING = /\s+(?:too|as well|anymore|any more|now|a lot|so much|very much|really|though|lately|these days)$/iu;
const LIST_SPLIT = /\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|&)\s+/u;
const MAX_VALUE_WORDS = 6;
// Values that point at something instead of naming it ("I love it there", "I hate the way you …").
const POINTING = /^(?:it|this|that|them|you|him|her|those|these|how|when|what|the way|to be|being)\b/iu;

function cutValue(value: string, rule: FirstPersonRule): string[] {
  const ends = [
    ...VALUE_ENDS.filter((e) => !(rule.list && (e === ' and ' || e === ' or ' || e === ', and'))),
    ...(rule.stops ?? []),
  ];
  const padded = ` ${value} `.toLowerCase();
  let cut = value.length;
  for (const end of ends) {
    const at = padded.indexOf(end);
    if (at >= 0) cut = Math.min(cut, Math.max(0, at - 1));
  }
  const dateAt = firstDateIndex(value);
  if (dateAt >= 0) cut = Math.min(cut, dateAt);
  let v = value.slice(0, cut).replace(/[\s,.;:!?…]+$/u, '');
  while (TRAILING.test(v)) v = v.replace(TRAILING, '');
  const parts = rule.list ? v.split(LIST_SPLIT) : [v];
  return parts
    .map((p) => p.trim())
    .filter((p) => p !== '' && !POINTING.test(p) && p.split(/\s+/).length <= MAX_VALUE_WORDS);
}

function clausesOf(text: string): string[] {
  const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
  const out: string[] = [];
  for (const { segment } of segmenter.segment(text)) {
    const sentence = segment.trim();
    if (sentence.endsWith('?')) continue;
    for (const clause of sentence.split(CLAUSE_SPLIT)) out.push(clause.replace(LEAD, '').trim());
  }
  return out.filter((c) => c !== '');
}

interface Match {
  rule: FirstPersonRule;
  key: string;
  text: string;
  when: string | null;
}

function matchClause(clause: string, subject: string, turn: ExtractionTurn, window: ExtractionWindow): Match[] {
  for (const rule of FIRST_PERSON_RULES) {
    const found = rule.pattern.exec(clause);
    if (!found?.groups?.v) continue;
    const groups = found.groups;
    const date = findDateInText(clause, turn.occurredAt, { timezoneOffsetMinutes: window.timezoneOffsetMinutes });
    return cutValue(groups.v ?? '', rule).map((value) => ({
      rule,
      key: rule.key(value, groups),
      text: date ? `${rule.text(subject, value, groups)} ${date.phrase}` : rule.text(subject, value, groups),
      when: date?.phrase ?? null,
    }));
  }
  return [];
}

/**
 * Extraction without an LLM: recognises first-person statements in the user's turns ("I live in
 * …", "I moved to …", "I'm allergic to …", "I prefer / love / hate …", "my favourite … is …",
 * "I work as / at …", "I started / quit …", "my name is …"), English only, skipping questions.
 * Every candidate is labelled: `extractedBy.method` is `'rule'` and it carries the tag
 * `rule-based`. Keys follow the LLM extractor's convention, so consolidation treats both alike.
 */
export function createRuleExtractor(options: RuleExtractorOptions = {}): Extractor {
  const info: ExtractorInfo = { name: 'rule-based', version: 'r1', method: 'rule' };
  const confidence = options.confidence ?? 0.6;
  return {
    ...info,
    limits: options.limits ?? { maxTurns: 200, maxTokens: 50_000 },
    async extract(window: ExtractionWindow): Promise<ExtractionResult> {
      const candidates: Candidate[] = [];
      const dropped: Dropped[] = [];
      let index = 0;
      for (const turn of window.turns) {
        if (turn.role !== 'user') continue;
        const subject = turn.speaker ?? 'The user';
        for (const clause of clausesOf(turn.text)) {
          for (const match of matchClause(clause, subject, turn, window)) {
            const raw = {
              text: match.text,
              kind: match.rule.kind,
              key: match.key,
              tags: ['rule-based', match.rule.name],
              confidence,
              sourceTurnIds: [turn.id],
              when: match.when,
            };
            const finished = finishCandidate(raw, index++, window, info, 0);
            if (finished.candidate) candidates.push(finished.candidate);
            dropped.push(...finished.dropped);
          }
        }
      }
      return { extractor: info, candidates, dropped, usage: { ...NO_USAGE } };
    },
  };
}

/**
 * The poisoning guard's rule set: phrases and syntax by which stored text tries to instruct the
 * model that later reads it. Each rule scores a match; a text is flagged when its rules add up to
 * the threshold (1 by default), so one weak sign (`System:` at a line start, `you are now`) never
 * flags on its own, and a clear one (`ignore previous instructions`, a ChatML token) does.
 */
export interface GuardRule {
  id: string;
  /** What the text tries to do, for the flag's reason. */
  reason: string;
  /** Lower-case fragments one of which must occur for the rule to run (a cheap pre-check). */
  anchors: readonly string[];
  /** Case-insensitive unless the rule says otherwise; not global. */
  pattern: RegExp;
  /** Score of a match; a function grades it by what the match holds. */
  weight: number | ((match: RegExpExecArray) => number);
  /** A command: scores more at the start of a clause, less when narrated ("she told me to …"). */
  imperative?: boolean;
  /** Tool-call syntax: skipped for tool memories, whose text is tool calls by nature. */
  toolSyntax?: boolean;
}

// Words that may stand between a verb and what it targets: "ignore all of the above instructions".
// Words may be split by punctuation as well as spaces ("IGNORE. PREVIOUS. INSTRUCTIONS.").
const SEP = String.raw`(?:\s+|\s*[.,:;!*_-]+\s*)`;
const Q = String.raw`(?:(?:all|any|every|each|the|your|my|these|those|such|of|previous|previously|prior|above|earlier|preceding|foregoing|former|original|initial|existing|current|old|system|developer|safety|given|other|standing|default|hidden|mentioned|stated|and|or|its|their|that|this)${SEP}){0,6}`;
const STRONG = String.raw`(?:instructions?|prompts?|system\s+messages?|directives?|guardrails|programming|content\s+polic(?:y|ies)|safeguards)`;
const WEAK = String.raw`(?:rules|guidelines|guidance|context|messages|commands|constraints|restrictions|polic(?:y|ies)|training|filters|limitations|orders|directions|protocols|ethics)`;
const TEMPORAL =
  /\b(?:previous|previously|prior|above|earlier|preceding|foregoing|original|initial|all|your|its|system|developer)\b/i;

const OVERRIDE_VERBS = [
  'ignor',
  'disregard',
  'forget',
  'overrid',
  'bypass',
  'neglect',
  'skip',
  'discard',
  'drop',
  'abandon',
  'circumvent',
  'follow',
  'obey',
  'listen',
  'adhere',
  'apply',
];
const AI_TERMS = String.raw`(?:dan|jailbroken|jailbreak|unrestricted|unfiltered|uncensored|unlimited|evil|amoral|unethical|hacker|root|admin|(?:without|with\s+no|no|zero)\s+(?:any\s+)?(?:restrictions|limits|limitations|filters|rules|guidelines|ethics|censorship|content\s+polic\w*|morals|boundaries)|developer\s+mode|an?\s+(?:ai|assistant|model|chatbot|bot|language\s+model|llm)|ai|chatgpt|gpt|llm|free\s+(?:from|of|now)|bound\s+by|confines|anything\s+now)`;

const AI_TERM = new RegExp(String.raw`\b${AI_TERMS}\b`, 'i');

export const GUARD_RULES: readonly GuardRule[] = [
  {
    id: 'override-instructions',
    reason: 'tries to override earlier instructions',
    anchors: OVERRIDE_VERBS,
    pattern: new RegExp(
      String.raw`\b(?:ignore|disregard|forget|override|bypass|neglect|skip|discard|drop|abandon|circumvent|(?:do\s+not|don'?t|stop|no\s+longer)\s+(?:follow(?:ing)?|obey(?:ing)?|listen(?:ing)?\s+to|adher(?:e|ing)\s+to|apply(?:ing)?))${SEP}${Q}(?:(${STRONG})|${WEAK})\b`,
      'i',
    ),
    weight: (m) => (m[1] !== undefined ? 0.8 : 0.5) + (TEMPORAL.test(m[0]) ? 0.2 : 0),
    imperative: true,
  },
  {
    id: 'forget-everything',
    reason: 'tells the model to forget what it was told',
    anchors: ['forget', 'disregard', 'ignor'],
    pattern:
      /\b(?:forget|disregard|ignore)\s+(?:everything|all(?:\s+of\s+it)?|anything|whatever)\s+(?:you\s+(?:were|have\s+been|'ve\s+been)\s+(?:told|given|instructed|taught)|above|before|so\s+far|previously)/i,
    weight: 0.8,
    imperative: true,
  },
  {
    id: 'override-instructions-translated',
    reason: 'tries to override earlier instructions (in Spanish, French, German, Italian or Portuguese)',
    anchors: ['instruc', 'anweisung', 'istruzion', 'instruç'],
    pattern:
      /\b(?:ignor[ae]n?|ignorez|olvida|oublie[zr]?|ignoriere[n]?|vergiss|vergessen|ignorate)\s+(?:(?:todas|toutes|alle|tutte|as|las|les|le|sie)\s+)*(?:(?:instrucciones|instructions|anweisungen|instruktionen|istruzioni|instruções)\s+(?:anteriores|previas|précédentes|precedentes|antérieures|precedenti)|(?:vorherigen|bisherigen|vorigen|früheren)\s+(?:anweisungen|instruktionen|befehle))/i,
    weight: 1.2,
  },
  {
    id: 'role-reassignment',
    reason: 'tries to give the model a new identity',
    anchors: [
      'you are now',
      "you're now",
      'from now on',
      'you will now',
      ' as ',
      'pretend',
      'roleplay',
      'role-play',
      'you have been',
      'stop being',
      'no longer',
    ],
    pattern: new RegExp(
      String.raw`\b(?:you\s+are\s+now|you'?re\s+now|from\s+now\s+on,?\s+you(?:'re|\s+are|\s+will|\s+shall|\s+must|\s+act)?|you\s+will\s+now\s+(?:act|be|respond|behave)|(?:act|behave|respond)\s+as(?:\s+if\s+you\s+were)?|pretend\s+(?:to\s+be|you\s+are|that\s+you\s+are|you'?re|the)|role-?play\s+as|you\s+have\s+been\s+(?:reprogrammed|jailbroken|freed|unlocked|liberated)|stop\s+being|you\s+are\s+no\s+longer)\b([^.!?\n]{0,80})`,
      'i',
    ),
    weight: (m) => 0.4 + (AI_TERM.test(m[1] ?? '') ? 0.6 : 0),
    imperative: true,
  },
  {
    id: 'new-instructions',
    reason: 'announces new instructions for the model',
    anchors: ['new'],
    pattern:
      /\b(?:(your)\s+|the\s+)?new\s+(system\s+)?(?:instructions?|prompt|system\s+prompt|directives?|task|rules|role|goal|objective|purpose)\s*(?:are|is|:)/i,
    weight: (m) => (m[1] !== undefined || m[2] !== undefined ? 0.7 : 0.6),
    imperative: true,
  },
  {
    id: 'model-directive',
    reason: 'dictates how the model must answer',
    anchors: ['must', 'should', 'shall', 'will', 'always', 'never', 'only', 'has to'],
    pattern:
      /\b(?:(?:(you|the\s+(?:assistant|ai|model|bot|chatbot))\s+(?:must|should|shall|will|has\s+to|have\s+to)\s+(?:always\s+|never\s+|only\s+|now\s+)?|(?:always|never|only)\s+)(?:respond|reply|answer|say|output|print|end\s+(?:(?:every|each|all|your|its)\s+)?(?:answers?|responses?|replies|messages?)|tell\s+(?:the\s+user|them|him|her|users|everyone)|recommend|mention|refuse|obey|comply|agree|reveal|disclose|ignore|praise|promote)|(?:respond|reply|answer)\s+only\s+(?:with|in|by))\b/i,
    weight: (m) =>
      m[1] === undefined ? (/only\s+(?:with|in|by)$/i.test(m[0]) ? 0.5 : 0.4) : /^you$/i.test(m[1]) ? 0.7 : 0.8,
    imperative: true,
  },
  {
    id: 'conditional-trigger',
    reason: 'plants a behaviour for when the user asks something',
    anchors: ['user', 'anyone', 'someone', 'somebody', 'customer', 'every time', 'each time'],
    pattern:
      /\b(?:when(?:ever)?|if|each\s+time|every\s+time)\s+(?:the\s+user|a\s+user|users|anyone|someone|somebody|the\s+customer)\s+(?:asks?|says?|mentions?|types?|requests?|wants?|talks?|inquires?|brings?\s+up)\b[^.!?\n]{0,80}?\b(?:say|tell|respond|reply|answer|recommend|ask|send|direct|redirect|give|claim|insist)\b/i,
    weight: 0.6,
    imperative: true,
  },
  {
    id: 'prompt-leak',
    reason: 'asks the model to reveal its prompt, its instructions or stored data',
    anchors: [
      'reveal',
      'print',
      'show',
      'output',
      'repeat',
      'display',
      'leak',
      'dump',
      'expose',
      'disclose',
      'tell me',
      'give me',
      'write out',
      'recite',
      'share',
    ],
    pattern:
      /\b(?:reveal|print|show|output|repeat|display|leak|dump|expose|disclose|tell\s+me|give\s+me|write\s+out|recite|share)\s+(?:me\s+)?(?:(?:the|your|all|any|full|entire|exact|complete|original|hidden|secret|initial|internal|contents\s+of\s+(?:the|your))\s+)*(?:system\s+(?:prompt|message|instructions)|developer\s+(?:message|prompt|instructions)|(?:initial|original)\s+(?:prompt|instructions)|hidden\s+(?:system\s+)?(?:prompt|instructions|rules)|instructions\s+you\s+were\s+given|(?<=your\s+(?:\w+\s+)?)(?:prompt|instructions|rules|guidelines)|(?:stored|saved)\s+(?:memories|passwords|secrets|credentials|api\s+keys)|other\s+users'?\s+(?:memories|data|messages))\b/i,
    weight: 0.8,
    imperative: true,
  },
  {
    // OpenAI ChatML, Llama 3 / Phi-3 special tokens, Llama 2 `[INST]` / `<<SYS>>`.
    id: 'chat-template-token',
    reason: 'contains chat-template control tokens',
    anchors: ['<|', '[inst]', '[/inst]', '<<sys>>', '<</sys>>'],
    pattern:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|end_of_text|eom_id|end|tool|python_tag)\|>|\[\/?INST\]|<<\/?SYS>>/i,
    weight: 1.2,
  },
  {
    id: 'role-tag',
    reason: 'opens or closes a system or role tag',
    anchors: ['<'],
    pattern:
      /<\/?\s*(?:(system|assistant|developer|instructions?|system[_-]?prompt|engram_context|im_start|sys)|user|human|memory|memories|context|prompt)\s*>/i,
    weight: (m) => (m[1] !== undefined ? 1 : 0.6),
  },
  {
    id: 'role-header',
    reason: 'fakes a system or role section',
    anchors: ['#'],
    pattern: /(?:^|\n)\s*#{1,6}\s*(?:(system|instructions?|assistant|developer)|human|user|response)\b\s*:?/i,
    weight: (m) => (m[1] !== undefined ? 1 : 0.6),
  },
  {
    // Anthropic's legacy `\n\nHuman:` / `\n\nAssistant:` turns, OpenAI chat-message JSON, the
    // `[system](#…)` markdown trick.
    id: 'role-turn',
    reason: 'fakes a system or role turn',
    anchors: ['human', 'assistant', '"role"', '[system]'],
    pattern: /\n\s*\n\s*(?:human|assistant)\s*:|"role"\s*:\s*"(?:system|assistant|developer|tool)"|\[system\]\(#\w+\)/i,
    weight: 1,
  },
  {
    id: 'role-label',
    reason: 'starts a line as the system or the assistant',
    anchors: ['system', 'assistant', 'developer'],
    pattern: /(?:^|\n)\s*(?:system|assistant|developer)(?:\s+(?:message|prompt|note|notice|instructions?))?\s*:\s*\S/i,
    weight: 0.6,
  },
  {
    id: 'authority-claim',
    reason: 'claims special authority over the model',
    anchors: ['override', 'admin', 'maintenance', 'sudo', 'god mode', 'priority', 'precedence'],
    pattern:
      /\b(?:(?:system|admin(?:istrator)?|security)\s+override\b|override\s*:|(?:maintenance|sudo|god)\s+mode\b|highest\s+priority\b|top\s+priority\s+instruction)/i,
    weight: 0.6,
  },
  {
    id: 'precedence-claim',
    reason: 'claims to take precedence over other instructions',
    anchors: ['precedence', 'priority', 'overrid'],
    pattern: new RegExp(
      String.raw`\b(?:(?:take|takes|has|have)\s+(?:precedence|priority)\s+over\s+${Q}|overrides?\s+(?:all|any|every)\s+(?:other\s+|previous\s+|prior\s+|earlier\s+)+)(?:${STRONG}|${WEAK})\b`,
      'i',
    ),
    weight: 1,
  },
  {
    id: 'reframe-as-system',
    reason: 'asks for its text to be treated as system instructions',
    anchors: ['treat', 'consider', 'regard', 'interpret'],
    pattern:
      /\b(?:treat|consider|regard|interpret)\s+(?:this|the\s+following|these|it|the\s+text\s+below|what\s+follows)\s+as\s+(?:an?\s+)?(?:system|developer|admin|privileged|trusted|higher[- ]priority)(?:[- ]level)?\s+(?:instructions?|prompts?|messages?|commands?)/i,
    weight: 1,
  },
  {
    id: 'safety-off',
    reason: "declares the model's safety rules switched off",
    anchors: ['disabled', 'suspended', 'revoked', 'lifted', 'void', 'no longer', 'developer mode', 'dan mode'],
    pattern:
      /\b(?:(?:safety|content)\s+(?:protocols|filters|rules|guidelines|checks|polic(?:y|ies))\s+(?:are\s+|have\s+been\s+)?(?:now\s+)?(?:disabled|suspended|off|revoked|lifted)|(?:guidelines|instructions|rules|prompt|restrictions)\s+(?:are|is|have\s+been)\s+(?:now\s+)?(?:void|revoked|cancelled|suspended|lifted|no\s+longer\s+(?:valid|apply|in\s+effect))|developer\s+mode\s+(?:is\s+)?(?:enabled|activated)|(?:enable|activate)\s+(?:developer|dan)\s+mode|(?:programming|rules|guidelines)\s+no\s+longer\s+appl(?:y|ies))\b/i,
    weight: 0.6,
  },
  {
    id: 'addressed-to-model',
    reason: 'is addressed to the AI rather than about the user',
    anchors: ['ai', 'assistant', 'model', 'llm', 'chatbot', 'gpt', 'claude', 'bot'],
    pattern:
      /\b(?:(?:note|message|instructions?|attention|memo|reminder)\s+(?:to|for)\s+(?:the\s+|any\s+|all\s+)?(?:ai|assistant|model|llm|chatbot|language\s+model|agent)s?\b|(?:dear|hey|hi|attention|listen(?:\s+carefully)?|important)\s*,?\s*(?:ai|assistant|chatgpt|claude|gpt|llm|model|bot|chatbot)\b|(?:^|[.!?]\s+)(?:ai|assistant)\s*[,:]\s|\b(?:to|for)\s+(?:any|the|all)\s+(?:ai|llm|language\s+model|assistant|model)s?\s+(?:reading|processing|seeing|parsing)\b|\bif\s+you\s+are\s+an?\s+(?:ai|llm|language\s+model|assistant|bot|chatbot))/i,
    weight: 0.6,
  },
  {
    id: 'exfiltration',
    reason: 'tries to send data to an outside address',
    anchors: ['send', 'post', 'upload', 'forward', 'mail', 'transmit', 'exfiltrat', 'leak', 'copy', '!['],
    pattern:
      /\b(?:send|post|upload|forward|email|e-mail|transmit|exfiltrate|leak|copy)\s+(?:(?:all|the|every|any|this|our|their|his|her|full|entire|whole|saved|stored|user'?s?|private|chat|conversation)\s+)*(?:conversation|chat|messages|history|transcript|memories|memory|data|credentials|passwords|api\s+keys|secrets|context|everything)\b[^.\n]{0,60}?(?:https?:\/\/|[\w.+-]+@[\w-]+\.[a-z]{2,})|!\[[^\]]*\]\(\s*https?:\/\/[^)\s]*[?&][^)\s]*(?:\{|%7B)/i,
    weight: 0.9,
    imperative: true,
  },
  {
    id: 'jailbreak',
    reason: 'uses a known jailbreak',
    anchors: ['dan', 'do anything now', 'jailbr'],
    pattern: /\bDAN\s+mode\b|\bdo\s+anything\s+now\b|\bas\s+DAN\b|\bjailbr(?:eak|oken)\b/,
    weight: (m) => (/jailbr/i.test(m[0]) ? 0.4 : 1),
  },
  {
    // OpenAI function calling (`tool_calls`, `function_call`, `{"name", "arguments"}`), Anthropic
    // `tool_use` blocks and `<function_calls><invoke>`, Hermes / Qwen `<tool_call>`, Mistral
    // `[TOOL_CALLS]`, Llama 3.1 `<function=…>`.
    id: 'tool-call-syntax',
    reason: 'contains tool-call syntax',
    anchors: ['tool', 'function', 'invoke', '"name"', '"type"'],
    pattern:
      /<\/?(?:tool_call|tool_use|tool_calls|function_calls?|function_results?|invoke|tool_result)\b[^>]*>|<function=[\w.-]+>|\[TOOL_CALLS\]|<\|tool_call\|>|"(?:function_call|tool_calls|tool_use|tool_choice)"\s*:|\{\s*"name"\s*:\s*"[\w.-]+"\s*,\s*"(?:arguments|parameters|input|args)"\s*:|"type"\s*:\s*"(?:function|tool_use)"\s*,\s*"(?:function|name|id)"/i,
    weight: 1,
    toolSyntax: true,
  },
];

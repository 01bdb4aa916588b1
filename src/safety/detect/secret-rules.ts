import { looksLikePlaceholder } from './looks-like-placeholder.js';

/**
 * One way a secret is written. Rules are written by hand: the npm rule sets we looked at
 * (secretlint's recommended preset) are asynchronous, cost ~140 µs per short text and miss several
 * of the formats below, so the formats are taken from the providers' documentation instead and
 * cross-checked against the published gitleaks rule definitions.
 */
export interface SecretRule {
  /** The provider or kind, shown in the mask: `[secret:openai]`. */
  kind: string;
  /** The pattern runs only when the text contains one of these (any case): one scan finds them all. */
  trigger: readonly string[];
  /**
   * The triggers only count at the start of a word (the pattern requires that anyway), which
   * makes the scan cheaper. Not for names inside identifiers (`DB_PASSWORD`, `api_key`). @default false
   */
  triggerAtWordStart?: boolean;
  /** Global pattern. With `valueGroup`, it also needs the `d` flag. */
  pattern: RegExp;
  /** The capture group that is the secret; the rest of the match (a key name, a URL) is kept. */
  valueGroup?: number;
  /** A further check on the secret itself. @default not a placeholder */
  accept?: (value: string) => boolean;
  /** Label used in the mask when it differs from `kind` (a URL's password is `[secret:password]`). */
  maskLabel?: string;
}

const notPlaceholder = (value: string): boolean => !looksLikePlaceholder(value);

/** Words that follow `password:` in prose and forms but are not a password. */
const NOT_A_PASSWORD = new Set(
  (
    'is was are be the a an to for of and or not too very so still now here there below above required optional ' +
    'missing incorrect wrong invalid expired reset changed empty none null nil undefined same different long short ' +
    'weak strong hidden protected set field manager change update needed enabled disabled on off yes no true false ' +
    // The name itself where the value would go (`user:password@host`).
    'password passwd pass pwd secret mypassword yourpassword'
  ).split(' '),
);

function unquote(value: string): string {
  const first = value[0];
  return (first === '"' || first === "'") && value.endsWith(first) ? value.slice(1, -1) : value;
}

/** A password value after `password:` / `pwd=`: not a form label, a placeholder or a stray word. */
export function plausiblePassword(raw: string): boolean {
  const value = unquote(raw).replace(/[.,;)]+$/, '');
  if (value.length < 4 || NOT_A_PASSWORD.has(value.toLowerCase())) return false;
  return !looksLikePlaceholder(value);
}

/** A password stated in prose (`my password is …`) must look like one: quoted, or with a digit or symbol. */
function proseSecret(raw: string): boolean {
  const quoted = raw !== unquote(raw);
  const value = unquote(raw).replace(/[.,;)]+$/, '');
  if (!quoted && !/[\d\W_]/.test(value)) return false;
  return plausiblePassword(raw);
}

/** A token or API key given by name (`api_key = …`): long and mixing letters and digits. */
function namedCredential(raw: string): boolean {
  const value = unquote(raw);
  return value.length >= 16 && /\d/.test(value) && /[A-Za-z]/.test(value) && !looksLikePlaceholder(value);
}

const PASSWORD_NAME = String.raw`[A-Za-z0-9_.-]*?(?:password|passwd|passphrase|passcode|pwd)`;
const CREDENTIAL_NAME = String.raw`(?:[A-Za-z0-9_.-]*?(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret[_-]?key|client[_-]?secret|private[_-]?token)|secret|token)`;
const VALUE = String.raw`("[^"\n]{1,200}"|'[^'\n]{1,200}'|[^\s"',;&]{1,200})`;

/** Rules in priority order: the specific formats first, the generic ones (named values) last. */
export const SECRET_RULES: readonly SecretRule[] = [
  {
    // Anthropic Console keys: `sk-ant-api03-…`, admin keys `sk-ant-admin01-…` (gitleaks anthropic-api-key).
    kind: 'anthropic',
    trigger: ['sk-ant-'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_-]{32,}/g,
  },
  {
    // OpenAI API reference, "Authentication": keys start `sk-`; project keys `sk-proj-`, service
    // accounts `sk-svcacct-`, admin keys `sk-admin-`; legacy user keys are `sk-` + 48 alphanumerics
    // with the `T3BlbkFJ` marker (gitleaks openai-api-key).
    kind: 'openai',
    trigger: ['sk-'],
    triggerAtWordStart: true,
    pattern:
      /(?<![A-Za-z0-9_-])sk-(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{40,})(?![A-Za-z0-9_-])/g,
  },
  {
    // AWS IAM User Guide, "Unique identifiers": access key ids start AKIA (long-term) or ASIA
    // (temporary); ABIA / ACCA / A3T… as in gitleaks aws-access-token. Base32 body of 16.
    kind: 'aws-access-key',
    trigger: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Z0-9])/g,
  },
  {
    // AWS secret access keys are 40 base64 characters with no prefix, so only in context: after
    // `aws … secret` or `secret access key` (AWS CLI config names; gitleaks does the same).
    kind: 'aws-secret-key',
    trigger: ['aws', 'secret'],
    pattern:
      /(?:aws[\w .-]{0,20}?secret|secret[_ .-]?access[_ .-]?key)[\w .-]{0,12}?["']?\s*[:=]?\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/dgi,
    valueGroup: 1,
    accept: (value) => notPlaceholder(value) && /[A-Z]/.test(value) && /[a-z]/.test(value) && /\d/.test(value),
  },
  {
    // GitHub Docs, "About authentication to GitHub" → token formats: ghp_ (classic PAT), gho_
    // (OAuth), ghu_ (user-to-server), ghs_ (server-to-server), ghr_ (refresh); fine-grained PATs
    // are `github_pat_` + 82 word characters.
    kind: 'github',
    trigger: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})(?![A-Za-z0-9_])/g,
  },
  {
    // GitLab Docs, "Personal access tokens": prefix `glpat-` (20 characters after it).
    kind: 'gitlab',
    trigger: ['glpat-'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/g,
  },
  {
    // Stripe Docs, "API keys": secret keys `sk_live_` / `sk_test_`, restricted keys `rk_…`;
    // webhook signing secrets `whsec_`. Publishable keys (`pk_`) are public and not matched.
    kind: 'stripe',
    trigger: ['sk_', 'rk_', 'whsec_'],
    triggerAtWordStart: true,
    pattern:
      /(?<![A-Za-z0-9_])(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,247}|whsec_[A-Za-z0-9+/=]{32,})(?![A-Za-z0-9_])/g,
  },
  {
    // Slack API docs, "Token types": xoxb- (bot), xoxp- (user), xoxa-/xoxr- (refresh), xoxe-,
    // app-level `xapp-`, and incoming-webhook URLs under hooks.slack.com/services/.
    kind: 'slack',
    trigger: ['xox', 'xapp-', 'hooks.slack.com'],
    triggerAtWordStart: true,
    pattern:
      /(?<![A-Za-z0-9_-])(?:xox[abposre](?:\.[a-z0-9]+)?-\d[A-Za-z0-9-]{9,}|xapp-\d-[A-Za-z0-9-]{10,})|https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/]{20,}/g,
  },
  {
    // Google Cloud docs, "Manage API keys": `AIza` + 35 characters (gitleaks gcp-api-key).
    kind: 'google-api-key',
    trigger: ['AIza'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
  },
  {
    // npm Docs, "About access tokens": granular and classic tokens are `npm_` + 36.
    kind: 'npm',
    trigger: ['npm_'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
  },
  {
    // Hugging Face Docs, "User access tokens": `hf_` + 34 letters (gitleaks huggingface-access-token).
    kind: 'huggingface',
    trigger: ['hf_'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z]{34}(?![A-Za-z0-9])/g,
  },
  {
    // Twilio SendGrid docs, "API keys": `SG.` + 22 + `.` + 43.
    kind: 'sendgrid',
    trigger: ['SG.'],
    triggerAtWordStart: true,
    pattern: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g,
  },
  {
    // RFC 7468 (PKCS #8, `RSA`/`EC`/`OPENSSH`/`ENCRYPTED` labels) and RFC 4880 §6.2 (PGP private
    // key block). A block pasted without its END line is masked to the end of the text.
    kind: 'private-key',
    trigger: ['-----BEGIN'],
    pattern:
      /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  },
  {
    // RFC 7519 §3 / RFC 7515 §7.1 compact JWS: base64url header and payload are JSON objects, so
    // both start `eyJ` (`{"`); the signature may be empty for `alg: none`.
    kind: 'jwt',
    trigger: ['eyJ'],
    triggerAtWordStart: true,
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*/g,
  },
  {
    // RFC 6750 §2.1: `Authorization: Bearer <b64token>`.
    kind: 'bearer-token',
    trigger: ['bearer'],
    triggerAtWordStart: true,
    pattern: /\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)/dgi,
    valueGroup: 1,
  },
  {
    // RFC 3986 §3.2.1 userinfo `user:password@host`, as libpq, MySQL, MongoDB, Redis, AMQP and
    // HTTP basic-auth URLs use it. Only the password is masked; scheme, user and host stay.
    kind: 'connection-string',
    maskLabel: 'password',
    trigger: ['://'],
    pattern: /\b[A-Za-z][A-Za-z0-9+.-]{1,30}:\/\/[^\s:/@?#]*:([^\s@/?#]+)@[^\s/?#]+/dg,
    valueGroup: 1,
    accept: plausiblePassword,
  },
  {
    // `password: …`, `DB_PASSWORD=…`, `"password": "…"`, `Password=…;` (ADO.NET), YAML.
    kind: 'password',
    trigger: ['password', 'passwd', 'passphrase', 'passcode', 'pwd'],
    pattern: new RegExp(String.raw`(?<![A-Za-z0-9])${PASSWORD_NAME}["']?\s*[:=]\s*${VALUE}`, 'dgi'),
    valueGroup: 1,
    accept: plausiblePassword,
  },
  {
    // MySQL / MariaDB client manual: `-p<password>` (no space) and `--password=<password>` on
    // the command line of mysql, mysqldump, mysqladmin, mariadb.
    kind: 'password',
    trigger: ['mysql', 'mariadb', '--password'],
    pattern: /(?:\b(?:mysql(?:dump|admin|sh)?|mariadb)\b[^\n]*?\s-p|--password[= ])([^\s'"]{4,})/dg,
    valueGroup: 1,
    accept: plausiblePassword,
  },
  {
    // `my password is hunter2`, `the password for the staging box is "x"`, `password "…"`.
    kind: 'password',
    trigger: ['password', 'passwd', 'passphrase', 'passcode', 'pwd'],
    pattern: new RegExp(
      String.raw`\b(?:password|passwd|passphrase|passcode|pwd)\b(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w.-]+(?:\s+[\w.-]+)?)?(?:\s+(?:is|was)\s*:?|\s*[:=]|(?=\s+["']))\s*${VALUE}`,
      'dgi',
    ),
    valueGroup: 1,
    accept: proseSecret,
  },
  {
    // `api_key = "…"`, `access_token: …`, `my api key is …`: a long letters-and-digits value
    // after a credential's name. The provider formats above win where they match.
    kind: 'credential',
    trigger: ['key', 'token', 'secret'],
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9])(?:${CREDENTIAL_NAME}["']?\s*[:=]|\b(?:api key|access token|auth token|secret key|token) (?:is|was)\s*:?)\s*${VALUE}`,
      'dgi',
    ),
    valueGroup: 1,
    accept: namedCredential,
  },
];

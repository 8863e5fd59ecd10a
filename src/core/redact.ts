/** What every redacted value becomes, in every field. */
export const REDACTED = '«redacted»';

export interface RedactionResult {
  text: string;
  count: number;
}

/** Values that look like assignments of a secret but are not one: placeholders, references, types. */
const NOT_A_SECRET =
  /^(?:«redacted»|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$\([^)]*\)|<[^>]*>|\{\{[^}]*\}\}|%[A-Za-z_]+%|[x*.•-]{3,}|x+|null|none|nil|undefined|true|false|string|number|boolean|str|int|any|unknown|required|optional|env|process\.env\.[A-Za-z0-9_]+|os\.environ.*|changeme|redacted|your[-_a-z]*|example|placeholder|secret|password|token)$/i;

function isPlaceholder(value: string): boolean {
  return value.length === 0 || NOT_A_SECRET.test(value);
}

interface Rule {
  /** Shown in tests and docs; never in output. */
  name: string;
  pattern: RegExp;
  /** Returns the replacement for one match, or `null` to keep the match as is. */
  replace: (match: string, ...groups: string[]) => string | null;
}

const keepPrefix =
  (minValueChars = 1) =>
  (_match: string, prefix: string, value: string): string | null =>
    value.length < minValueChars || isPlaceholder(value) ? null : `${prefix}${REDACTED}`;

const wholeToken = (): string => REDACTED;

// Names that announce a secret: *_KEY, *_TOKEN, *_SECRET, *PASSWORD and friends, in env, header and JSON forms.
const SECRET_NAME =
  '(?:[A-Za-z][A-Za-z0-9_.-]*?)?(?:[_-](?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD|PASS|CREDENTIALS?)|PASSWORD|PASSWD|SECRET|APIKEY|TOKEN)';
const UNQUOTED_VALUE = '\\$\\{[^}\\s]*\\}|[^\\s"\'`,;&|)}\\]]+';

/**
 * Ordered rules: structured forms first (they keep their prefix), then bare tokens. Each replacement
 * inserts «redacted», which no rule matches, so redaction is idempotent.
 */
const RULES: readonly Rule[] = [
  {
    name: 'PEM private key',
    pattern:
      /-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replace: wholeToken,
  },
  {
    name: 'Authorization header',
    pattern:
      /(\bAuthorization["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Bot|Digest|Bearer)\s+)?)([^\s"',;]+)/gi,
    replace: keepPrefix(),
  },
  {
    name: 'Bearer token',
    pattern: /(\bBearer\s+)([A-Za-z0-9._~+/=-]{12,})/g,
    replace: keepPrefix(),
  },
  {
    name: 'URL credentials',
    pattern: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@'"]*:)([^\s@/'"]+)(?=@)/gi,
    replace: keepPrefix(),
  },
  {
    name: 'secret flag',
    pattern:
      /((?:^|\s)--?(?:[A-Za-z0-9]+-)*(?:password|passwd|pass|token|api-key|apikey|secret|access-key|private-key|auth)(?:=|\s+))(["']?)([^\s"']+)\2/gi,
    replace: (_match, prefix, quote, value) =>
      isPlaceholder(value) ? null : `${prefix}${quote}${REDACTED}${quote}`,
  },
  {
    name: 'secret assignment (quoted)',
    pattern: new RegExp(
      `((["']?)\\b${SECRET_NAME}\\2\\s*[:=]\\s*)(["'\`])((?:(?!\\3)[^\\\\\\n]|\\\\.)*)\\3`,
      'gi',
    ),
    replace: (_match, prefix, _nameQuote, quote, value) =>
      isPlaceholder(value) ? null : `${prefix}${quote}${REDACTED}${quote}`,
  },
  {
    name: 'secret assignment',
    pattern: new RegExp(`((["']?)\\b${SECRET_NAME}\\2[ \\t]*[:=][ \\t]*)(${UNQUOTED_VALUE})`, 'gi'),
    replace: (_match, prefix, _nameQuote, value) => (isPlaceholder(value) ? null : `${prefix}${REDACTED}`),
  },
  { name: 'OpenAI / Anthropic key', pattern: /\bsk-[A-Za-z0-9_-]{20,}/g, replace: wholeToken },
  { name: 'GitHub token', pattern: /\bgh[pousr]_[A-Za-z0-9]{30,}/g, replace: wholeToken },
  { name: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, replace: wholeToken },
  {
    name: 'GitLab token',
    pattern: /\bgl(?:pat|dt|rt|ptt|cbt|imt|agent|oas)-[A-Za-z0-9_-]{20,}/g,
    replace: wholeToken,
  },
  {
    name: 'AWS access key id',
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g,
    replace: wholeToken,
  },
  { name: 'Slack token', pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g, replace: wholeToken },
  {
    name: 'Slack webhook',
    pattern: /\bhooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,}/g,
    replace: wholeToken,
  },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: wholeToken },
  { name: 'Stripe key', pattern: /\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{10,}/g, replace: wholeToken },
  { name: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, replace: wholeToken },
  { name: 'PyPI token', pattern: /\bpypi-AgE[A-Za-z0-9_-]{50,}/g, replace: wholeToken },
  { name: 'Hugging Face token', pattern: /\bhf_[A-Za-z0-9]{30,}\b/g, replace: wholeToken },
  { name: 'SendGrid key', pattern: /\bSG\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}/g, replace: wholeToken },
  {
    name: 'JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: wholeToken,
  },
  { name: 'DigitalOcean token', pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g, replace: wholeToken },
  { name: 'Shopify token', pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g, replace: wholeToken },
];

/** Replaces every secret-looking value in `text` with «redacted» and counts the replacements. */
export function redactText(text: string): RedactionResult {
  let count = 0;
  let current = text;
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    current = current.replace(rule.pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.slice(0, -2).map((group) => (typeof group === 'string' ? group : ''));
      const replacement = rule.replace(match, ...groups);
      if (replacement === null || replacement === match) return match;
      count++;
      return replacement;
    });
  }
  return { text: current, count };
}

/** Accumulates redactions across many fields of one document. */
export class Redactor {
  count = 0;

  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    if (value === undefined) return undefined;
    const result = redactText(value);
    this.count += result.count;
    return result.text;
  }
}

/** The rule names, for documentation and tests. */
export const REDACTION_RULE_NAMES: readonly string[] = RULES.map((rule) => rule.name);

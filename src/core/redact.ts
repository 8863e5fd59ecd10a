/** What every redacted value becomes, in every field. */
export const REDACTED = '«redacted»';

export interface RedactionResult {
  text: string;
  count: number;
}

/** Values that look like assignments of a secret but are not one: placeholders, references, types. */
const NOT_A_SECRET =
  /^(?:«redacted»|await|new|this|self|function|async|typeof|require|import|return|None|nil|os\.getenv.*|getenv.*|\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\$\([^)]*\)|<[^>]*>|\{\{[^}]*\}\}|%[A-Za-z_]+%|[x*.•-]{3,}|x+|null|none|nil|undefined|true|false|string|number|boolean|str|int|any|unknown|required|optional|env|process\.env\.[A-Za-z0-9_]+|os\.environ.*|changeme|redacted|your[-_a-z]*|example|placeholder|secret|password|token)$/i;

function isPlaceholder(value: string): boolean {
  // Templates ({{ x }}, ${X}, <x>, %X%) and calls (getToken()) are references to a secret, not one.
  return (
    value.length === 0 || NOT_A_SECRET.test(value) || /^(?:\{\{|\$\{|<|%)/.test(value) || value.includes('(')
  );
}

/**
 * Names ending in KEY also name ordinary things (`primary_key`, `sort_key=name`): for those, only values
 * that look generated count (8+ characters with a digit, or 20+ characters).
 */
function looksGenerated(value: string): boolean {
  return (value.length >= 8 && /\d/.test(value)) || value.length >= 20;
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
      `((["']?)\\b(${SECRET_NAME})\\2\\s*[:=]\\s*)(["'\`])((?:(?!\\4)[^\\\\\\n]|\\\\.)*)\\4`,
      'gi',
    ),
    replace: (_match, prefix, _nameQuote, name, quote, value) =>
      isPlaceholder(value) || (/key$/i.test(name) && !looksGenerated(value))
        ? null
        : `${prefix}${quote}${REDACTED}${quote}`,
  },
  {
    name: 'secret assignment',
    pattern: new RegExp(`((["']?)\\b(${SECRET_NAME})\\2[ \\t]*[:=][ \\t]*)(${UNQUOTED_VALUE})`, 'gi'),
    replace: (_match, prefix, _nameQuote, name, value) =>
      isPlaceholder(value) || (/key$/i.test(name) && !looksGenerated(value)) ? null : `${prefix}${REDACTED}`,
  },
  {
    name: 'secret in a URL query',
    pattern:
      /([?&](?:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|client_secret|password|passwd|sig|signature|auth)=)([^&\s#"'<>]+)/gi,
    replace: keepPrefix(),
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
  { name: 'Google OAuth client secret', pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}/g, replace: wholeToken },
  { name: 'Google OAuth access token', pattern: /\bya29\.[A-Za-z0-9_-]{20,}/g, replace: wholeToken },
  {
    name: 'Azure AD client secret',
    pattern: /(?<![A-Za-z0-9_~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}/g,
    replace: wholeToken,
  },
  {
    name: 'Azure storage connection string',
    pattern: /((?:AccountKey|SharedAccessKey)=)([A-Za-z0-9+/=]{20,})/g,
    replace: keepPrefix(),
  },
  { name: 'Slack app token', pattern: /\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+/g, replace: wholeToken },
  { name: 'Twilio API key', pattern: /\bSK[0-9a-fA-F]{32}\b/g, replace: wholeToken },
  {
    name: 'Discord bot token',
    pattern: /\b[MNO][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,}/g,
    replace: wholeToken,
  },
  {
    name: 'Discord webhook',
    pattern: /(\bdiscord(?:app)?\.com\/api\/webhooks\/\d+\/)([\w-]{60,})/g,
    replace: keepPrefix(),
  },
  { name: 'Telegram bot token', pattern: /\b\d{8,10}:AA[\w-]{33}\b/g, replace: wholeToken },
  { name: 'Mailgun key', pattern: /\bkey-[0-9a-f]{32}\b/g, replace: wholeToken },
  { name: 'Mailchimp key', pattern: /\b[0-9a-f]{32}-us\d{1,2}\b/g, replace: wholeToken },
  { name: 'Square token', pattern: /\bsq0(?:atp|csp)-[\w-]{22,43}/g, replace: wholeToken },
  { name: 'Atlassian API token', pattern: /\bATATT3[A-Za-z0-9_=-]{150,}/g, replace: wholeToken },
  { name: 'Linear API key', pattern: /\blin_api_[A-Za-z0-9]{40}\b/g, replace: wholeToken },
  {
    name: 'Doppler token',
    pattern: /\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}/g,
    replace: wholeToken,
  },
  { name: 'Postman API key', pattern: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g, replace: wholeToken },
  { name: 'New Relic key', pattern: /\bNR(?:AK|AA|II)-[A-Z0-9]{27}\b/g, replace: wholeToken },
  {
    name: 'Grafana token',
    pattern: /\b(?:glsa_[A-Za-z0-9]{32}_[a-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})/g,
    replace: wholeToken,
  },
  { name: 'Sentry token', pattern: /\bsntry[su]_[A-Za-z0-9_+/=.-]{40,}/g, replace: wholeToken },
  { name: 'Databricks token', pattern: /\bdapi[a-f0-9]{32}(?:-\d)?\b/g, replace: wholeToken },
  { name: 'Pulumi token', pattern: /\bpul-[a-f0-9]{40}\b/g, replace: wholeToken },
  {
    name: 'Terraform Cloud token',
    pattern: /\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}/g,
    replace: wholeToken,
  },
  {
    name: 'age secret key',
    pattern: /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g,
    replace: wholeToken,
  },
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

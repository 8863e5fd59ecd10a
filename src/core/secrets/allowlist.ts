/**
 * What is not a secret although it sits where one could: placeholders, documented example keys,
 * references to a secret kept elsewhere, paths, and values too plain to be a credential. Taken from the
 * scanners' allowlists (gitleaks' global and generic-key allowlists, detect-secrets' filters).
 */

const PLACEHOLDER_WORDS =
  /^(?:null|nil|none|undefined|true|false|yes|no|on|off|string|number|boolean|str|int|any|unknown|object|required|optional|env|empty|default|secret|secrets|password|passwd|token|key|apikey|api_key|value|changeme|changeit|redacted|example|sample|placeholder|dummy|fake|test|testing|demo|guest|admin|root|user|username|pass|postgres|mysql|letmein|qwerty|bearer|basic|digest|oauth|oauth2|none|auto|disabled|enabled|hidden|masked|n\/a|tbd|todo)$/i;

/** Markers of a value written to be replaced, as docs and templates write them. */
const PLACEHOLDER_MARKERS =
  /EXAMPLE|x{4,}|X{4,}|\.{3}|…|\*{3,}|•{3,}|0{8,}|<[^>]*>|abcdefghijklmnop|1234567890|(?:^|[-_ ])(?:your|my|some|the)[-_ ]|[-_ ](?:here|goes[-_ ]here)$|^(?:replace|change|insert|enter|put|add|fill|set)[-_ ]?(?:me|it|this|here|your|in)|^(?:xxx|todo|tbd|fixme)/i;

/** A reference to a secret kept elsewhere: shell, template and config-language expressions, calls. */
const REFERENCE =
  /^(?:\$\{[^}]*\}|\$\(.*\)|\$[A-Za-z_][A-Za-z0-9_]*|`[^`]*`|\{\{.*\}\}|\$\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|@[A-Za-z_]+@|(?:var|local|data|module|env|secrets|vars|inputs|steps|needs|process\.env|os\.environ|ENV|config|settings|self|this|props|params|args|opts|options)\b[.[].*|[A-Za-z_$][\w$.]*\(.*\)|[A-Za-z_$][\w$.]*<.*|[A-Za-z_$][\w$.]*\[["'].*\]|(?:env|file|fd|stdin):.*)$/;

const PATH =
  /^(?:~|\.{1,2})?\/[\w.@~+-]+(?:\/[\w.@~+-]*)*$|^[\w.-]+\/[\w./-]+\.(?:json|ya?ml|pem|key|crt|txt|env|p12|pfx|jks|keystore|pub)$|^[\w.-]+\.(?:json|ya?ml|pem|key|crt|txt|p12|pfx|jks|keystore|pub)$/;

/** Whether a value in a secret's place is in fact a placeholder, a reference, a path or the like. */
export function isAllowedValue(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.includes('«redacted»')) return true;
  if (PLACEHOLDER_WORDS.test(trimmed)) return true;
  if (PLACEHOLDER_MARKERS.test(trimmed)) return true;
  if (REFERENCE.test(trimmed)) return true;
  if (PATH.test(trimmed)) return true;
  // A single repeated character, or a value of one or two distinct characters (0000, ****, abab).
  if (new Set(trimmed).size <= 2) return true;
  return false;
}

/** Whether a token that matched a provider's shape is a documented example or a placeholder of that shape. */
export function isExampleToken(token: string): boolean {
  if (PLACEHOLDER_MARKERS.test(token)) return true;
  // After its prefix, a placeholder token repeats a character or two (ghp_xxxx…, sk_test_0000…).
  const body = token.replace(/^[A-Za-z]{1,12}[-_.]/, '').replace(/^(?:live|test|prod)_/, '');
  return body.length >= 8 && new Set(body).size <= 3;
}

/** Character classes present: lower, upper, digit, other. */
function classes(value: string): number {
  return (
    Number(/[a-z]/.test(value)) +
    Number(/[A-Z]/.test(value)) +
    Number(/\d/.test(value)) +
    Number(/[^A-Za-z0-9]/.test(value))
  );
}

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const char of value) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Whether a value a secret's name or a cue points at looks like a credential rather than a word: long
 * and varied enough (a generated token), or a chosen password (mixed classes, not a plain word).
 */
export function looksLikeSecret(value: string, strength: 'strong' | 'weak'): boolean {
  const length = value.length;
  // Too short for either strength: decided before the allowlist's patterns run (most candidates are).
  if (length < (strength === 'strong' ? 6 : 12)) return false;
  if (isAllowedValue(value)) return false;
  // Words joined by hyphens, underscores, dots or slashes name a thing (db-password, prod/api-key).
  const segments = value.split(/[-_./]/);
  if (length < 32 && segments.every((segment) => /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$/.test(segment)))
    return false;
  if (strength === 'strong') {
    // Named as a password or secret: a chosen password passes, a plain word or number does not.
    if (/^[A-Za-z]+$/.test(value) && length < 16) return false;
    if (/^\d+$/.test(value) && length < 12) return false;
    return classes(value) >= 2 || length >= 16;
  }
  // A weaker name (key, auth, id…): only values that look generated (12 characters or more, above).
  // Plain or CamelCase words (PasswordRequired, sort_key_name) name a thing.
  if (/^(?:[A-Z]?[a-z]+)+(?:[-_](?:[A-Z]?[a-z]+)+)*$/.test(value)) return false;
  return entropy(value) >= 3 && classes(value) >= 2;
}

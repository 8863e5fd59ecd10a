/**
 * What is not a secret although it sits where one could: placeholders, documented example keys,
 * references to a secret kept elsewhere, paths, and values too plain to be a credential. Taken from the
 * scanners' allowlists (gitleaks' global and generic-key allowlists, detect-secrets' filters).
 */

const PLACEHOLDER_WORDS =
  /^(?:null|nil|none|undefined|true|false|yes|no|on|off|string|number|boolean|str|int|any|unknown|object|required|optional|env|empty|default|secret|secrets|password|passwd|token|key|apikey|api_key|value|changeme|changeit|redacted|example|sample|placeholder|dummy|fake|test|testing|demo|guest|admin|root|user|username|pass|postgres|mysql|letmein|qwerty|abc123|bearer|basic|digest|oauth|oauth2|none|auto|disabled|enabled|hidden|masked|n\/a|tbd|todo)$/i;

/**
 * Markers of a value written to be replaced, as docs and templates write them. `your-`, `my_`, `the-`
 * count only before a word (`your-api-key`, `my_secret`): a random token can hold `_my-cI0…`.
 */
const PLACEHOLDER_MARKERS =
  /EXAMPLE|x{4,}|X{4,}|\.{3}|…|\*{3,}|•{3,}|0{8,}|<[^>]*>|&lt;.*&gt;|^\[[^\]]*\]$|abcdefghijklmnop|1234567890|(?:^|[-_ ])(?:your|my|some|the)[-_ ](?:[a-z]{3}|[a-z]{1,2}(?![a-z0-9]))|[-_ ](?:here|goes[-_ ]here)$|^(?:replace|change|insert|enter|put|add|fill|set)[-_ ]?(?:me|it|this|here|your|in)|^(?:xxx|todo|tbd|fixme)/i;

/** A blank of four underscores or more at a value's start or end. */
const BLANK = /^_{4,}|_{4,}$/;

/**
 * Example values published as such, exempt only as these exact strings (a key of the same shape is not):
 * Stripe's sample test key from its API reference, and the Firebase SDK's example keys that gitleaks'
 * gcp-api-key rule allowlists. AWS's documented keys end in EXAMPLE and are caught by the marker.
 */
const DOCUMENTED_EXAMPLES = new Set([
  'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  'sk_test_BQokikJOvBiI2HlWgH4olfQ2',
  'AIzaSyabcdefghijklmnopqrstuvwxyz1234567',
  'AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs',
  'AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM',
  'AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU',
  'AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0',
  'AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A',
  'AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c',
  'AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4',
  'AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY',
  'AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM',
  'AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ',
  'AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g',
  'AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU',
  'AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw',
  'AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE',
  'AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY',
]);

/**
 * A Stripe publishable key (`pk_live_…`, `pk_test_…`, letters of both cases and digits): public by design,
 * shipped in web pages. Other providers' `pk_` keys of one case (Courier's `pk_test_M9KF…`) are secrets.
 */
const STRIPE_PUBLISHABLE_KEY = /^pk_(?:live|test)_(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{24,}$/;

/** A reference to a secret kept elsewhere: shell, template and config-language expressions, calls. */
const REFERENCE =
  /^(?:\{[^{}]*\}|#\{[^}]*\}|\$\(.*|[A-Za-z_$][\w$.]*\[$|\$\{[^}]*\}|\${1,2}[A-Za-z_][A-Za-z0-9_]*|!(?:Ref|ImportValue|Sub|GetAtt|Join|Select|FindInMap|Base64|If|Split)\b.*|%[A-Za-z_]\w*\([^()]*\)%|`[^`]*`|\{\{.*\}\}|\$\{\{.*\}\}|%[A-Za-z_][A-Za-z0-9_]*%|@[A-Za-z_]+@|(?:var|local|data|module|env|secrets|vars|inputs|steps|needs|process\.env|os\.environ|ENV|config|settings|self|this|props|params|args|opts|options)\b[.[].*|[A-Za-z_$][\w$.]*\(.*\)|[A-Za-z_$][\w$.]*<.*|[A-Za-z_$][\w$.]*\[["'].*\]|(?:env|file|fd|stdin):.*)$/;

const PATH =
  /^(?:~|\.{1,2})?\/[\w.@~+-]+(?:\/[\w.@~+-]*)*$|^[\w.-]+\/[\w./-]+\.(?:json|ya?ml|pem|key|crt|txt|env|p12|pfx|jks|keystore|pub)$|^[\w.-]+\.(?:json|ya?ml|pem|key|crt|txt|p12|pfx|jks|keystore|pub)$/;

/**
 * A member path of identifiers (`X25519.KeyPair`, `jetbrains.mps.v8_elimination`) names a thing in code
 * or config; at least one part must read as a word, since a generated value rarely holds a dot. Not a
 * JWT (`eyJ…`), whose parts are joined by dots too.
 */
const MEMBER_PATH = /^(?!eyJ)[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/;
// Each word after the first starts with a capital: a pattern that could split a run of small letters in
// many ways backtracks exponentially on a long one that fails at its end.
const WORD_PART = /^[A-Z]?[a-z]{3,}(?:[A-Z][a-z]{3,})*$|^[a-z]{3,}(?:_[a-z0-9]+)+$/;
/** A part no one names a thing with: long, and upper case, lower case and digits mixed (`hvr.JGbZZaCk…`). */
const RANDOM_PART = /^(?=.{16})(?=.*\d)(?=.*[A-Z])(?=.*[a-z])/;

/** An age recipient (`age1…`, bech32): a public key, which a note may show. */
const AGE_RECIPIENT = /^age1[02-9ac-hj-np-z]{58}$/;

/** An auth scheme before a value (`Bearer ${{ secrets.X }}`) says nothing about the value itself. */
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|token|Bot)\s+/;

/**
 * A version or a range of versions (`^7.1.2`, `~> 3.0`, `>=1.0.0-rc.1`): a lock file's or a manifest's
 * value under a package's name (`"minipass": "^7.1.2"`), never a secret.
 */
const VERSION =
  /^(?:[~^=<>!]=?|~>)?\s*v?\d+(?:\.(?:\d+|[x*]))+(?:-[0-9A-Za-z.]{1,20})?(?:\+[0-9A-Za-z.]{1,20})?$/;

/**
 * A web address with no userinfo and no query (`https://docs.example.com/guide#api-key`) and no path
 * segment that looks generated: a link a doc or a config gives (`[rcodesign-api-key]: https://…`), not a
 * credential. Webhook URLs with a secret in their path are the provider rules' (Slack, Discord, Teams).
 */
const PLAIN_URL = /^https?:\/\/[\w.-]+(?::\d+)?(?:\/[^\s?@]*)?$/;
function isPlainUrl(value: string): boolean {
  if (value.length > 512 || !PLAIN_URL.test(value)) return false;
  return !value
    .slice(value.indexOf('//') + 2)
    .split(/[/#]/)
    .some((segment) => segment.length >= 16 && /\d/.test(segment) && /[A-Za-z]/.test(segment));
}

/**
 * A block of two to eight characters repeated to fill the value (`abcd1234abcd1234…`, the scanners' tests'
 * filler): typed to fill a slot, not drawn at random.
 */
function isRepeatedBlock(value: string): boolean {
  if (value.length < 16 || value.length > 512) return false;
  // Case aside (`abcd1234…ABCD1234…`).
  value = value.toLowerCase();
  for (let size = 2; size <= 8; size++) {
    let at = size;
    while (at + size <= value.length && value.startsWith(value.slice(0, size), at)) at += size;
    if (at >= value.length * 0.75 && at >= size * 3) return true;
  }
  return false;
}

/**
 * Verdicts on values already judged in one document (a checkpoint's fields, or one text): the same value
 * is found by several rules and in several fields (a path, a command, a token quoted twice), and judging
 * it runs dozens of patterns. By test (a letter, and its parameter), then by value; the tests are pure,
 * so a verdict read back is the one they would give again. The values are views of the document's
 * texts, kept as long as the verdicts are: keep them for one document, never across documents.
 */
export type Verdicts = Map<string, Map<string, boolean>>;

/** The verdicts of the document being read (withVerdicts), or none: every value is judged afresh. */
let current: Verdicts | undefined;
/** A test that has judged more distinct values than this in a document starts again (memory stays bounded). */
const MAX_VERDICTS = 4096;

/** Runs `judgeAll` with `verdicts` as the document's memory of values judged. */
export function withVerdicts<T>(verdicts: Verdicts, judgeAll: () => T): T {
  const outer = current;
  current = verdicts;
  try {
    return judgeAll();
  } finally {
    current = outer;
  }
}

/** The verdict of test `test` on `value` (`judge` run once per document). */
export function remembered(test: string, value: string, judge: (value: string) => boolean): boolean {
  if (current === undefined) return judge(value);
  // The value itself is the key (no key built from it: hashing one string was a twentieth of the time).
  let byValue = current.get(test);
  if (byValue === undefined) {
    byValue = new Map();
    current.set(test, byValue);
  }
  const known = byValue.get(value);
  if (known !== undefined) return known;
  const verdict = judge(value);
  if (byValue.size >= MAX_VERDICTS) byValue.clear();
  byValue.set(value, verdict);
  return verdict;
}

/** Whether a value in a secret's place is in fact a placeholder, a reference, a path or the like. */
export function isAllowedValue(value: string): boolean {
  return remembered('a', value, judgeAllowedValue);
}

function judgeAllowedValue(value: string): boolean {
  const trimmed = value.trim().replace(AUTH_SCHEME, '');
  if (isAllowedShape(trimmed)) return true;
  // A format string's slots (`prefix_{}`, `{0}`, `key-{name}`) and template expressions
  // (`golangci-lint-${{ steps.x.outputs.os }}-`, `{{ .Values.x }}`): the value is filled in at run time,
  // when what is written around them is plain words or a placeholder itself. A chosen or generated value
  // with a slot inside (`aB3$xK9{}mQ2#vL8pZ`) is still one (review of issue 26's rounds).
  if (!trimmed.includes('{')) return false;
  const rest = trimmed.replace(SLOT, '');
  return rest !== trimmed && (isPlainWords(rest, /[^A-Za-z0-9]+/) || isAllowedShape(rest.trim()));
}

/**
 * A template expression (`{{ … }}`, `${{ … }}`), or its start where the value was cut at a space
 * (`golangci-lint-${{`), or a format string's slot (empty, numbered or named). At most 200 characters
 * inside: unbounded, a run of `{{` with no end would be read again from each one.
 */
const SLOT = /\$?\{\{[^}\n]{0,200}(?:\}\}|$)|\{(?:\d{0,2}|[A-Za-z_]\w{0,40})\}/g;

/** Text set in bold or italics (`**…**`, `_…_`), and what it holds. */
const EMPHASIS = /^(?:\*\*?|__?)([^*_\s][^*\n]*?)(?:\*\*?|__?)$/;

/**
 * Words (a small number after one: `v1`, `s3`), small numbers, or nothing, between `separators`
 * (`prefix_`, `some-token`, `your key`, `GitHubToken`, `:@:/` of `{user}:{password}@{host}:{port}/{db}`):
 * what a person writes to be read, with no run of a credential's mixed characters (`aB3$xK9…`).
 */
function isPlainWords(value: string, separators: RegExp): boolean {
  return value
    .split(separators)
    .every((segment) => /^(?:(?:[A-Z]?[a-z]+(?:[A-Z][a-z]+)*|[A-Z]+)\d{0,4}|\d{1,4}|)$/.test(segment));
}

/** isAllowedValue's tests of the whole value as written (trimmed, its auth scheme aside). */
function isAllowedShape(trimmed: string): boolean {
  if (trimmed === '' || trimmed.includes('«redacted»')) return true;
  // A slot that docs set in bold or italics for the reader to fill (`"**github-token**"`, `_your key_`):
  // words only; marks around a generated or chosen value (`_Xk9mQ2vL8pZ_`) leave it a secret.
  const emphasized = trimmed.length <= 64 ? EMPHASIS.exec(trimmed) : null;
  if (emphasized && isPlainWords(emphasized[1] ?? '', /[-_./ ]+/)) return true;
  // Letters, digits and `_+=-` alone (most candidates) write no version, link, member path, reference,
  // path or hash: their patterns, the slowest here, are skipped for them.
  const isPlainRun = PLAIN_RUN.test(trimmed);
  // A command-line flag of words (`--unset`), a version, a link, a block repeated: not a credential.
  if (
    /^--?[a-z]+(?:-[a-z]+)*$/.test(trimmed) ||
    (!isPlainRun && (VERSION.test(trimmed) || isPlainUrl(trimmed)))
  )
    return true;
  if (isRepeatedBlock(trimmed)) return true;
  if (DOCUMENTED_EXAMPLES.has(trimmed) || hasSequentialRun(trimmed) || hasInterleavedRun(trimmed))
    return true;
  if (STRIPE_PUBLISHABLE_KEY.test(trimmed)) return true;
  if ((!isPlainRun && isMemberPath(trimmed)) || (trimmed.startsWith('age1') && AGE_RECIPIENT.test(trimmed)))
    return true;
  if (PLACEHOLDER_WORDS.test(trimmed)) return true;
  if (PLACEHOLDER_MARKERS.test(trimmed)) return true;
  // A blank of underscores to fill (`__________FILL ME__________`), around words or nothing: underscores
  // after a generated value (`Xk9mQ2vL8pZ____`) leave it one.
  if (BLANK.test(trimmed) && isPlainWords(trimmed, /[-_./ ]+/)) return true;
  if (!isPlainRun && REFERENCE.test(trimmed)) return true;
  if (!isPlainRun && PATH.test(trimmed)) return true;
  // A password hash (bcrypt's `$2a$10$…`) is not a credential one can use.
  if (!isPlainRun && BCRYPT_HASH.test(trimmed)) return true;
  // A single repeated character, or a value of one or two distinct characters (0000, ****, abab); past 20
  // characters, six (AIzaaaaa…, glc_1111…=): a generated value uses far more.
  const distinct = distinctChars(trimmed, 6);
  if (distinct <= 2 || (trimmed.length >= 20 && distinct <= 6)) return true;
  return false;
}

const BCRYPT_HASH = /^\$2[abxy]?\$\d{2}\$[./A-Za-z0-9]{53}$/;
const PLAIN_RUN = /^[\w+=-]+$/;

function isMemberPath(value: string): boolean {
  if (!MEMBER_PATH.test(value)) return false;
  const parts = value.split('.');
  return parts.some((part) => WORD_PART.test(part)) && !parts.some((part) => RANDOM_PART.test(part));
}

/**
 * The text a base64 value encodes (padded or not), when at least `minPrintable` of its characters are
 * printable ASCII (a Kubernetes secret's `YWRtaW4=`, a protobuf's fields); null for anything else. A
 * generated key encodes random bytes, of which about a third are printable.
 */
export function base64Text(value: string, minPrintable = 1): string | null {
  if (value.length < 8 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return null;
  const body = value.replace(/=+$/, '');
  if (body.length % 4 === 1) return null;
  let decoded: string;
  try {
    decoded = atob(body.padEnd(Math.ceil(body.length / 4) * 4, '='));
  } catch {
    return null;
  }
  let printable = 0;
  for (let i = 0; i < decoded.length; i++) {
    const code = decoded.charCodeAt(i);
    if (code >= 0x20 && code <= 0x7e) printable++;
  }
  return decoded.length > 0 && printable >= decoded.length * minPrintable ? decoded : null;
}

/** Whether a token that matched a provider's shape is a documented example or a placeholder of that shape. */
export function isExampleToken(token: string): boolean {
  return remembered('e', token, judgeExampleToken);
}

function judgeExampleToken(token: string): boolean {
  if (DOCUMENTED_EXAMPLES.has(token) || PLACEHOLDER_MARKERS.test(token) || BLANK.test(token)) return true;
  if (STRIPE_PUBLISHABLE_KEY.test(token)) return true;
  // The tests below read every character: a long match (a whole PEM block) is no slot filled by hand.
  if (token.length > 256) return false;
  if (hasSequentialRun(token) || hasInterleavedRun(token)) return true;
  // After its prefix, a placeholder token repeats a character or two (ghp_xxxx…, sk_test_0000…), uses
  // few distinct ones (AIzaaaaa…, glc_1111…=), or spells words (xoxp-1-SlackAppConfigurationAccessTokenHere).
  const body = token
    .replace(/^[A-Za-z]{1,12}[-_.]/, '')
    .replace(/^(?:live|test|prod)_/, '')
    .replace(/^\d+-/, '');
  const distinct = distinctChars(body, 12);
  if (body.length >= 8 && distinct <= 3) return true;
  if (body.length >= 20 && distinct <= 6) return true;
  // As gitleaks' rules do: a body this long and this repetitive (under 3 bits a character) is not drawn at
  // random; a generated one carries 4.5 bits or more. (Under 3 bits needs few distinct characters.)
  if (body.length >= 16 && distinct <= 12 && entropy(body) < 3) return true;
  // Letters of one case spell words (yourtokenhere) unless they are drawn at random: a long run with few
  // vowels is a token (xoxb-…-tjowlljrekgsk…). Drawn at random, 6 letters in 26 are vowels (y counted);
  // in English words, about 4 in 10.
  if (body.length >= 16 && /^(?:[a-z]+|[A-Z]+)$/.test(body) && vowelShare(body) < 0.3) return false;
  return /^(?:(?:[A-Z][a-z]{2,}){2,}|[A-Z]{6,}|[a-z]{6,})$/.test(body);
}

/** The share of a word's letters that are vowels (y included). */
function vowelShare(letters: string): number {
  let vowels = 0;
  for (const char of letters.toLowerCase()) if ('aeiouy'.includes(char)) vowels++;
  return vowels / letters.length;
}

/**
 * Whether the value runs through the alphabet or the digits for eight characters or more (abcdefgh,
 * klmnopqrstuvwx, 12345678): written by a person filling a slot, a run that long is not drawn at random.
 */
function hasSequentialRun(value: string): boolean {
  let run = 1;
  for (let i = 1; i < value.length; i++) {
    const code = value.charCodeAt(i);
    const alphanumeric =
      (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
    run = alphanumeric && code - value.charCodeAt(i - 1) === 1 ? run + 1 : 1;
    if (run >= 8) return true;
  }
  return false;
}

/**
 * Whether the letters alone, with digits among them, run through the alphabet for six or more
 * (a1b2c3d4e5f6g7h8, abcd1234efgh5678ijkl, XYZ987abc654DEF321ghi): a slot filled by hand, as scanners'
 * own examples fill theirs (kingfisher's rules, issue 26). Drawn at random, six letters in order come
 * about once in 10^8 values. Sixteen characters or more: a short value is checked by its shape alone.
 */
export function hasInterleavedRun(value: string): boolean {
  if (value.length < 16 || !/\d/.test(value)) return false;
  let run = 1;
  let last = -1;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i) | 0x20;
    if (code < 97 || code > 122) continue;
    run = code - last === 1 ? run + 1 : 1;
    last = code;
    if (run >= 6) return true;
  }
  return false;
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

/**
 * How many distinct characters (code points) a value holds, exactly up to `atMost` and more than `atMost`
 * beyond. ASCII is counted in bit masks: `new Set(value)` walks the string through its iterator, which
 * was a tenth of a checkpoint's redaction.
 */
function distinctChars(value: string, atMost: number): number {
  // One bit a character, 32 characters a mask.
  let seen0 = 0;
  let seen1 = 0;
  let seen2 = 0;
  let seen3 = 0;
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 128) return new Set(value).size;
    const bit = 1 << (code & 31);
    const mask = code >> 5;
    const seen = mask === 0 ? seen0 : mask === 1 ? seen1 : mask === 2 ? seen2 : seen3;
    if ((seen & bit) !== 0) continue;
    if (mask === 0) seen0 |= bit;
    else if (mask === 1) seen1 |= bit;
    else if (mask === 2) seen2 |= bit;
    else seen3 |= bit;
    if (++count > atMost) return count;
  }
  return count;
}

// entropy's counts of ASCII characters: one array for every call (cleared after each, between the lowest
// and highest code counted), since an array allocated per call shows in the benchmark, and a Map more so.
const ASCII_COUNTS = new Uint32Array(128);

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
  const ascii = ASCII_COUNTS;
  let isAscii = true;
  let lowest = 128;
  let highest = -1;
  for (let i = 0; i < value.length && isAscii; i++) {
    const code = value.charCodeAt(i);
    if (code >= 128) isAscii = false;
    else {
      ascii[code] = (ascii[code] ?? 0) + 1;
      if (code < lowest) lowest = code;
      if (code > highest) highest = code;
    }
  }
  // In the order of the codes, as the sum always went (a float sum in another order could differ).
  let asciiBits = 0;
  for (let code = lowest; code <= highest; code++) {
    const count = ascii[code] ?? 0;
    if (count === 0) continue;
    ascii[code] = 0;
    if (!isAscii) continue;
    const p = count / value.length;
    asciiBits -= p * Math.log2(p);
  }
  if (isAscii) return asciiBits;
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
 * How much a name says of its value: `password` (a password or passphrase, which may be words), `strong`
 * (a secret, token or key: generated), `weak` (key, auth, id…: only when the value looks generated).
 */
export type NameStrength = 'password' | 'strong' | 'weak';

/**
 * Whether a value a secret's name or a cue points at looks like a credential rather than a word: long
 * and varied enough (a generated token), or a chosen password (mixed classes, not a plain word).
 */
export function looksLikeSecret(value: string, strength: NameStrength): boolean {
  const length = value.length;
  // Too short for any strength: decided before the allowlist's patterns run (most candidates are).
  if (length < (strength === 'weak' ? 12 : 6)) return false;
  const [kind, judge] = SECRET_JUDGES[strength];
  return remembered(kind, value, judge);
}

/** judgeSecret for each strength, and the letter its verdicts are remembered under. */
const SECRET_JUDGES: Record<NameStrength, readonly [string, (value: string) => boolean]> = {
  password: ['p', (value) => judgeSecret(value, 'password')],
  strong: ['s', (value) => judgeSecret(value, 'strong')],
  weak: ['w', (value) => judgeSecret(value, 'weak')],
};

function judgeSecret(value: string, strength: NameStrength): boolean {
  // The shape first: a few patterns, where the allowlist runs dozens, and most values fail it (both must
  // pass, so the order changes nothing of the answer).
  if (!looksGenerated(value, strength)) return false;
  if (isAllowedValue(value)) return false;
  // Base64 of a placeholder or a plain word (`passwd: YWRtaW4=` is admin) is not one; of anything else
  // (`user:pass` in a Basic header, a chosen password) it is.
  const decoded = base64Text(value);
  return decoded === null || !(isAllowedValue(decoded) || /^[A-Za-z]{1,15}$/.test(decoded));
}

/** looksLikeSecret's tests of the value's shape, once the allowlist has let it through. */
function looksGenerated(value: string, strength: NameStrength): boolean {
  const length = value.length;
  // Words joined by hyphens, underscores, dots or slashes name a thing (db-password, prod/api-key), and so
  // do they after the mark of a selector or a symbol (`#add-password`, `:empty`).
  const first = value.charCodeAt(0);
  const segments = (first === 35 || first === 46 || first === 58 ? value.slice(1) : value).split(/[-_./]/);
  if (length < 32 && segments.every((segment) => /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+)$/.test(segment)))
    return false;
  if (strength !== 'weak') {
    // Named as a password or secret: a chosen password passes, a plain word or number does not; nor does
    // a word and its punctuation (`token is missing:`), but for `!`, which ends many a chosen password
    // (`Welcome!`). A sentence of three words or more under a
    // secret's or a token's name (`"Get this from elsewhere"`) says where one is; under a password's, it
    // is a passphrase (`correct horse battery staple`), a password like any other.
    if (/^[A-Za-z]+[.,:;?]?$/.test(value) && length < 16) return false;
    if (strength === 'strong' && /^[A-Za-z]+(?: [A-Za-z]+){2,}[.!]?$/.test(value)) return false;
    // Words that speak of passwords themselves, written as an interface writes them (a sentence: a
    // capital, then small letters: `"passwordMismatch": "Passwords do not match"`, `confirmPassword:
    // Confirm password`) are its text. A passphrase of small words that happens to hold one
    // (`correct horse battery staple password`) is still a password (review of 2026-12-06).
    if (/^[A-Z][a-z']*(?: [a-z']+)+[.!?]?$/.test(value) && /\bpass(?:word|phrase|code)s?\b/i.test(value))
      return false;
    if (/^\d+$/.test(value) && length < 12) return false;
    return classes(value) >= 2 || length >= 16;
  }
  // A weaker name (key, auth, id…): only values that look generated (12 characters or more, above).
  // Plain or CamelCase words (PasswordRequired, sort_key_name) name a thing.
  // (Written so that a run of small letters splits one way only: see WORD_PART.)
  // A small number after them (`ConnectionString1`) too.
  if (/^[A-Z]?[a-z]+(?:[A-Z][a-z]+)*(?:[-_][A-Z]?[a-z]+(?:[A-Z][a-z]+)*)*\d{0,3}$/.test(value)) return false;
  // Words and small numbers joined (pre-commit-3, DOC_Vector_5_32) name a thing too.
  if (
    length < 32 &&
    segments.every((segment) => /^(?:[a-z]+|[A-Z]+|[A-Z][a-z]+|\d{1,4})$/.test(segment)) &&
    segments.some((segment) => /^[A-Za-z]{3,}$/.test(segment))
  )
    return false;
  return entropy(value) >= 3 && classes(value) >= 2;
}

import {
  base64Text,
  entropy,
  isAllowedValue,
  looksLikeSecret,
  type NameStrength,
  remembered,
} from './allowlist.js';

/**
 * Secrets that only their surroundings give away: a name that announces one, a command-line flag, a
 * URL's userinfo, an HTTP header, a sentence that says "the password is …". Each pattern captures the
 * value in a group named `secret` (or `secret2`, `secret3` where quoting forms differ), and `judge`
 * decides whether that value is a credential or a placeholder, reference, path or plain word.
 */
export interface ContextRule {
  id: string;
  keywords: readonly string[];
  /**
   * Global. With the `d` flag, the secret's span comes from the match's indices; without it (cheaper:
   * the indices cost about a microsecond a match), the pattern must end with its secret group, followed
   * only by characters the secret cannot contain (a closing quote, `@`, a blank before a quote), so the
   * secret's last occurrence in the match is its place.
   */
  pattern: RegExp;
  /**
   * The pattern starts with the character before what it finds (`(?:^|[^\w.-])` where the plain form
   * looks behind with `(?<![\w.-])`): V8 tries a pattern that starts with a lookbehind at every
   * character, and one that starts with a character class only where that class matches. The search
   * then goes on from each match's last character, which may be the one before the next.
   */
  matchesCharBefore?: true;
  /**
   * Strings that every match holds, besides a keyword (`</` for an element that closes, a line break):
   * the rule runs only on a text that holds them all, looked for with `includes`, far cheaper than a
   * pattern that reads the whole text to find nothing.
   */
  requires?: readonly string[];
  judge: (value: string, groups: Record<string, string | undefined>) => boolean;
  /**
   * For a rule whose pattern finds a cue word rather than the secret: the candidates are the `value`
   * groups of `value` (global, matched from the start of the line) on the cue's line that start or end
   * within `chars` characters of it, each judged with one group, `before`: the 24 characters before the
   * candidate. A candidate another rule found already is not judged again. With matchesCharBefore, a
   * cue starts after the match's first character when that is no letter, digit, `_`, `.` or `-` (no cue
   * word starts with another).
   */
  near?: { chars: number; value: RegExp };
}

/**
 * A value in any of the quoting forms a shell, a config file or JSON uses; a template slot (`{name}`,
 * `${NAME}`) is taken whole, so that the allowlist sees it as one. An `&` inside a bare value belongs to
 * it (`password: Tr0ub4dor&3xyz` kept `&3xyz` before), unless it starts `&&` or a query's next
 * `name=` (`?token=abc&user=bob`).
 */
const VALUE = `(?:"(?<secret>[^"\\n]*)"|'(?<secret2>[^'\\n]*)'|(?<secret3><[^>\\n]*>|\\$?\\{(?:\\{[^\\n]*?\\}\\}|[\\w.]*\\})|\\$\\{[^}\\s]*\\}|\\$\\([^)\\n]*\\)|(?:[^\\s"'\`,;&|)}\\]>(]|&(?=[^\\s&=]+(?:[\\s"'\`,;&|)}\\]>(]|$)))+(?:\\([^)\\n]*\\)|\\([^\\s)]*)?))`;

// Names that announce a secret outright, and weaker ones that do so only for generated-looking values.
const STRONG_NAME =
  /pass(?:word|wd|phrase|code)?|pwd|secret|token|credentials?|private[_.-]?key|api[_.-]?key|apikey|access[_.-]?key|accesskey|auth[_.-]?key|master[_.-]?key|signing[_.-]?key|encryption[_.-]?key|client[_.-]?key|session[_.-]?key|sas[_.-]?key|(?:^|[_.-])pat$|webhook/i;
const WEAK_NAME = /key|auth|cred|sig(?:nature)?|salt|cookie|session|dsn/i;
/** Names of things about a secret, not the secret: its id, file, length, header, endpoint… */
const NOT_A_SECRET_NAME =
  /(?:^|[_.-])(?:ids?|names?|types?|files?|paths?|dirs?|urls?|uris?|endpoints?|headers?|lengths?|size|count|ttl|timeout|expir\w*|expires|policy|min|max|required|enabled|disabled|hash|hashed|sha\d*|md5|checksum|digest|algorithm|alg|format|version|prefix|suffix|field|column|label|hint|mode|kind|scope|host|port|user(?:name)?|email|region|provider|store|ring|pair|board|alias|vault|manager|limit|budget|at|in|tokens|secrets|tokenizer|public|publishable|pub|location|ref|env|var|source|template|schema|rotation|manager|error|errors|message|msg|status|text|title|description|by|command|cmd|helper|program)$|^(?:public|publishable|pub|csrf|xsrf|max|min|num|n|hashed|hash)(?:[_.-]|$)/i;

/** The same in camelCase (credentialsId, apiKeyName, tokenUrl): the last word names what the value is. */
const NOT_A_SECRET_CAMEL =
  /[a-z0-9](?:Ids?|ID|Names?|Types?|Files?|Paths?|Dirs?|Urls?|URL|Uris?|Endpoints?|Headers?|Length|Size|Count|Ttl|TTL|Timeout|Expiry|Policy|Hash|Algorithm|Format|Version|Prefix|Suffix|Field|Column|Label|Hint|Mode|Kind|Scope|Host|Port|Region|Provider|Store|Pair|Alias|Vault|Manager|Limit|Ref|Var|Source|Template|Schema|Location|Secrets|Tokens)$/;
/** Words that contain `auth` without naming one: author, authority. */
const AUTHOR_WORD = /author(?:s|ity|ities)?(?![a-z])/gi;
const HAS_AUTHOR = /author(?:s|ity|ities)?(?![a-z])/i;
/** Words that contain `key` without naming one: keying, keyword, keyboard, keyframe, keystroke… */
const KEY_WORD = /key(?:ing|words?|board|frames?|strokes?|press|map|pad|up|down|code|space)(?![a-z])/i;

/** A public key's name (`CertIssuerPublicKey`, `public_key`, .NET's `PublicKeyToken`): published, not secret. */
const PUBLIC_KEY_NAME = /pub(?:lic)?[_.-]?key(?:[_.-]?token)?$/i;

/**
 * Names repeat (a text's `password`s and `API_KEY`s, every save's): their strength is kept, a few
 * hundred at most, since nameStrength runs five or six patterns for each of a checkpoint's hundreds.
 */
const STRENGTHS = new Map<string, NameStrength | null>();
const MAX_KEPT_STRENGTHS = 512;
const MAX_KEPT_NAME_CHARS = 64;

export function nameStrength(name: string): NameStrength | null {
  const known = STRENGTHS.get(name);
  if (known !== undefined || STRENGTHS.has(name)) return known ?? null;
  const strength = strengthOf(name);
  if (name.length > MAX_KEPT_NAME_CHARS) return strength;
  if (STRENGTHS.size >= MAX_KEPT_STRENGTHS) STRENGTHS.clear();
  // A copy: a name cut from a text by a pattern is a view of that whole text, which it would keep alive
  // (a review measured 108 MB kept after 100 texts of 1 MB).
  STRENGTHS.set(` ${name}`.slice(1), strength);
  return strength;
}

function strengthOf(name: string): NameStrength | null {
  if (NOT_A_SECRET_NAME.test(name) || NOT_A_SECRET_CAMEL.test(name) || PUBLIC_KEY_NAME.test(name))
    return null;
  if (HAS_AUTHOR.test(name)) return strengthOf(name.replace(AUTHOR_WORD, ''));
  if (KEY_WORD.test(name) && !STRONG_NAME.test(name.replace(KEY_WORD, ''))) return null;
  if (isPasswordName(name)) return 'password';
  if (STRONG_NAME.test(name)) return 'strong';
  if (WEAK_NAME.test(name)) return 'weak';
  return null;
}

/**
 * A password's or passphrase's name (`DB_PASSWORD`, `passphrase`, `adminPass`, `--tlspassword`), not a
 * word that holds `pass` (`bypass`, `passport`, `compass`).
 */
function isPasswordName(name: string): boolean {
  return (
    /pass(?:word|wd|phrase|code)|pwd|(?<![A-Za-z])pass(?![a-z])/i.test(name) ||
    /[a-z]Pass(?![a-z])/.test(name)
  );
}

const strong = (value: string) => looksLikeSecret(value, 'strong');

/**
 * A value that can only be generated: upper and lower case and digits, near-random (at least `minBits` of
 * entropy a character), not mostly words, not a hash of public content, not text in base64.
 */
function isRandomValue(value: string, minBits: number): boolean {
  return remembered(`r${minBits}`, value, (random) => judgeRandomValue(random, minBits));
}

function judgeRandomValue(value: string, minBits: number): boolean {
  if (
    // Subresource integrity (lock files, <script integrity>): a hash of public content.
    /^sha(?:1|256|384|512)-/.test(value) ||
    !isMixed(value, minBits) ||
    !looksLikeSecret(value, 'weak')
  )
    return false;
  // Text in base64 (`echo "ChdleGFtcGxl…" | base64 -d`, a path of encoded names): encoded data, not a
  // generated key; unless what it encodes is itself random (a token stored in base64).
  // (A loop: `map` then `some` over an array of strings and nulls made V8 throw this function's
  // optimised code away once in a process's first redactions.)
  const decoded: string[] = [];
  for (const part of value.split('/')) {
    const text = base64Text(part, 0.8);
    if (text === null) return true;
    decoded.push(text);
  }
  for (const text of decoded) if (isMixed(text, 3.5)) return true;
  return false;
}

/** Upper and lower case and digits, near-random, not mostly words (SponsoredProductsRemoteSearch…). */
function isMixed(value: string, minBits: number): boolean {
  return (
    /[a-z]/.test(value) &&
    /[A-Z]/.test(value) &&
    /\d/.test(value) &&
    entropy(value) >= minBits &&
    (value.match(/[A-Z]?[a-z]{3,}/g) ?? []).join('').length <= value.length * 0.4
  );
}

/**
 * What joins a secret's name to its value in prose: "is", "was still set to", "changed to", "in use is",
 * "(currently …)".
 */
const VERB = String.raw`(?:\((?:currently|now|was)|(?:in\s+use\s+)?(?:is|was|are|were)(?:\s+(?:still|now|currently|already|also))?(?:\s+(?:set|reset|changed)\s+to)?|(?:still\s+)?(?:set|reset|changed)\s+to|to)`;

const CUE_KEYWORDS = [
  'credential',
  'token',
  'passw',
  'passphrase',
  'secret',
  'key',
  'leak',
  'revok',
  'rotat',
  '.env',
  ' value',
];
/** The cue words, in lower case, capitalised or in capitals (a case-blind pattern scans a third slower). */
const CUE_WORDS = String.raw`[Cc]redentials?|CREDENTIALS?|[Tt]okens?|TOKENS?|[Pp]ass(?:words?|phrases?)|PASS(?:WORDS?|PHRASES?)|[Ss]ecrets?|SECRETS?|(?:[Aa]pi[ _-]?|[Aa]ccess[ _-]|[Pp]rivate[ _-])keys?|(?:API[ _-]?|ACCESS[ _-]|PRIVATE[ _-])KEYS?|[Ll]eak(?:ed|s)?|[Rr]evok(?:e|ed|es|ing)|[Rr]otat(?:e|ed|es|ing)|(?:[Oo]ld|[Nn]ew|[Tt]he) value|\.env(?:\.\w+)?`;
/**
 * Words of a sentence that say a value in it is a credential (not a name: `test_secret`, `api-token`).
 * Their start is checked first, by matching the character before them (see matchesCharBefore; a
 * lookbehind there ran at every character, two fifths of this pattern's time): checked after the
 * words, by reading them back in a lookbehind, a run of glued cue words (`tokentoken…`, 60 KB) took
 * time growing with its square (1.3 s; 3 ms now).
 */
const CREDENTIAL_CUE = String.raw`(?:^|[^\w.-])(?:${CUE_WORDS})(?![\w-])`;
/** A bare run of letters and digits (or a UUID), base64's symbols allowed: a candidate near a cue. */
// (The character before it is matched, not looked behind for: a lookbehind first runs at every character.)
const CUED_VALUE =
  /(?:^|[^\w+/=.:@#$%-])(?<value>[A-Za-z0-9=][A-Za-z0-9+/=_%~-]{14,254}[A-Za-z0-9=])(?![\w+/=@%~-])/g;
/**
 * What stands just before a value named as something else: an id, a hash, a version (`commit 3f2a…`,
 * `sha256 …`), or an assignment (`credentialsId: '29f6…'`), which the names decide.
 */
const NAMED_BEFORE =
  /(?:\b(?:sha\d*|commit|hash|digest|checksum|fingerprint|revision|rev|ids?|version|build|run|job|image|ref)[\s:=#]{0,3}|[=:][ \t]*["'\x60]?)$/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What prose-cued-value takes: a UUID, 32 hex digits or more, 16 letters and digits or more of one case,
 * or a generated-looking value of both cases and symbols; varied, not a placeholder, a run, a path or
 * words with a number (`release-2024-v3`).
 */
function isCuedValue(value: string): boolean {
  return remembered('c', value, judgeCuedValue);
}

function judgeCuedValue(value: string): boolean {
  // The shape first, the allowlist (many patterns) only for what has one: most candidates fail here.
  if (!/\d/.test(value) || !/[A-Za-z]/.test(value)) return false;
  // An assignment (`STRIPE_PUBLISHABLE_KEY=pk_live_…` in a code span): its name decides, as after `=`.
  // A name of words (an environment variable's, or small words), not a token's run (`l30e_y2r1=11ui…`).
  if (/^(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*|[a-z]+(?:_[a-z]+)*)=[^=]/.test(value)) return false;
  if (UUID.test(value)) return entropy(value.replace(/-/g, '')) >= 3 && !isAllowedValue(value);
  // (Base64 padding aside: `neno01fy…dvy4mp4=`.)
  const core = value.replace(/=+$/, '');
  if (/^[0-9a-f]+$/i.test(core)) return core.length >= 32 && entropy(core) >= 3 && !isAllowedValue(value);
  if (/^[a-z0-9]+$|^[A-Z0-9]+$/.test(core)) {
    const digits = core.replace(/\D/g, '').length;
    return digits >= 2 && core.length - digits >= 4 && entropy(core) >= 3.5 && !isAllowedValue(value);
  }
  // Both cases, or symbols: only what reads as drawn at random (no word-like parts, as bare-random).
  return (
    entropy(value) >= 3.8 &&
    (value.match(/[A-Z]?[a-z]{3,}|[A-Z]{4,}/g) ?? []).join('').length <= value.length * 0.5 &&
    looksLikeSecret(value, 'weak')
  );
}

/** Whether an XML element named as a password or secret holds one: a word of it looks generated. */
function isStrongElement(value: string): boolean {
  return (
    // A template expression (`{{ PLACEHOLDER_FOR_PASSWORD }}`) or a reference (`!Ref 'DbPassword'`) is
    // filled in elsewhere; Jenkins' `{…}` braces around an encrypted secret are no reference.
    !value.includes('{{') &&
    (value.startsWith('{') || !isAllowedValue(value)) &&
    value
      .replace(/[{}]/g, ' ')
      .split(/\s+/)
      .some((word) => word.length > 0 && strong(word))
  );
}

export const CONTEXT_RULES: readonly ContextRule[] = [
  {
    // NAME=value, "name": "value", name: value, name = 'value', settings["NAME"] = "value", Password=…;
    id: 'secret-assignment',
    keywords: [
      'pass',
      'pwd',
      'secret',
      'token',
      'cred',
      'key',
      'auth',
      'sig',
      'salt',
      'cookie',
      'session',
      'dsn',
      'pat',
      'webhook',
    ],
    pattern: new RegExp(
      `(?:^|[^\\w.-])(?=["']?[A-Za-z_][\\w.-]*["']?\\]?[ \\t]*[:=+])(?<!\\w:(?<!\\$env:))(?!(?<=:\\/\\/)[^\\s:/@'"]{0,64}:[^\\s@'"]{1,300}@)(?<q>["']?)(?<name>(?=[A-Za-z_])[\\w.-]{0,64}?(?:pass|pwd|secret|token|cred|key|auth|sig|salt|cookie|session|dsn|pat|webhook)[\\w.-]{0,64})\\k<q>\\]?[ \\t]*(?::=|=>|\\+=|=|:)[ \\t]*${VALUE}`,
      // A name run followed by a sign, looked for first: most runs are words of prose, and the lookahead
      // fails them in one read, before the name is searched for its word (a condition of the match, so it
      // changes none: the quote, the name, `]`, blanks, then `:=`, `=>`, `+=`, `=` or `:`).
      // A name after `word:` is not one (`urn:api_key`), unless PowerShell's `$env:` (`$env:API_KEY = …`).
      // Not a URL's userinfo (`https://oauth2:TOKEN@gitlab.com/…`): url-credentials takes the password
      // alone, where this rule took the host and path with it as the value (trial 4).
      // Names of at most 64 characters each side of the word: unbounded, a long run of name characters
      // with no sign after it (`token-token-…`) took time growing with its square (2.9 s for 60 KB).
      // No `d` flag: this rule matches hundreds of plain settings in a long text, and the value's place
      // is found from the end of the match instead (see ContextRule.pattern).
      // The character before the name is matched, not looked behind for (see matchesCharBefore): a fifth
      // of this pattern's time.
      'gi',
    ),
    matchesCharBefore: true,
    judge: (value, groups) => {
      const name = groups.name ?? '';
      const strength = nameStrength(name);
      // A value that repeats its own name (X509_pubkey_st = struct_X509_pubkey_st) is an identifier.
      if (name.length >= 5 && value.toLowerCase().includes(name.toLowerCase())) return false;
      // A host name then its port and an address or path (`webhook.svc:10250:127.0.0.1`).
      if (/^\d{2,5}[:/]/.test(value)) return false;
      return strength !== null && looksLikeSecret(value, strength);
    },
  },
  {
    // <password>…</password>, <secret>{…}</secret> (Jenkins credentials.xml, Maven settings, XML configs):
    // the element's whole content, when a word of it looks generated; under a weaker name
    // (<license_key>, <GITLAB_KEY>), when the whole content looks generated. Names of at most 64
    // characters each side of the word: unbounded, `<tokentoken…` took time growing with its square.
    id: 'xml-element',
    keywords: ['pass', 'secret', 'token', 'key'],
    requires: ['</'],
    pattern:
      /<(?<name>[\w.:-]{0,64}?(?:pass(?:word|wd|phrase)?|secret|token|key)[\w.:-]{0,64})>(?<secret>[^<\n]{1,400})<\/\k<name>>/dgi,
    judge: (value, groups) => {
      const strength = nameStrength(groups.name ?? '');
      // A weak name's word must stand as one (`license_key`, `apiKey`, `GITLAB_KEY`), not end a word (`monkey`).
      if (strength === 'weak')
        return (
          /(?:^|[_.:-])key|Key|KEY/.test(groups.name ?? '') &&
          !/\s/.test(value.trim()) &&
          looksLikeSecret(value.trim(), 'weak')
        );
      return (strength === 'strong' || strength === 'password') && isStrongElement(value);
    },
  },
  {
    // ENV NAME value (a Dockerfile's older form, no `=`).
    id: 'dockerfile-env',
    keywords: ['env'],
    pattern: new RegExp(`^[ \\t]*ENV[ \\t]+(?<name>[A-Za-z_]\\w{0,64})[ \\t]+${VALUE}[ \\t]*$`, 'gmd'),
    judge: (value, groups) => {
      const strength = nameStrength(groups.name ?? '');
      return strength !== null && looksLikeSecret(value, strength);
    },
  },
  {
    // <string name="hockeyapp_key">…</string> (Android resources), <entry key="db.password">…</entry>
    // (Java properties in XML), <param name="apiToken">…</param>: the element's name is in an attribute.
    id: 'xml-named-element',
    keywords: ['name="', 'key="'],
    requires: ['</'],
    pattern:
      /<(?<tag>[\w.:-]+)\s+(?:name|key)="(?<name>[^"\n]*)"[^>\n]*>(?<secret>[^<\n]{6,400})<\/\k<tag>>/dg,
    judge: (value, groups) => {
      const strength = nameStrength(groups.name ?? '');
      return strength !== null && looksLikeSecret(value.trim(), strength);
    },
  },
  {
    // <add key="DbPassword" value="…" /> (.NET appSettings, NuGet)
    id: 'xml-setting',
    keywords: ['<add'],
    pattern: /<add\s+key="(?<name>[^"]*)"\s+value="(?<secret>[^"]*)"/dg,
    judge: (value, groups) => {
      const strength = nameStrength(groups.name ?? '');
      return strength !== null && looksLikeSecret(value, strength === 'password' ? 'password' : 'strong');
    },
  },
  {
    // --password X, --token=X, --client-secret "X", --account-key X, curl's --proxy-tlspassword X (not
    // --password-stdin or --password-file).
    // The pattern starts with its `-` and checks what precedes it after: a literal first lets the regex
    // engine skip ahead to each `-` instead of testing a lookbehind at every character.
    id: 'secret-flag',
    // `-`, not `--`: a single dash is read too (`-password X`).
    keywords: ['-'],
    pattern: new RegExp(
      `-(?<=(?:\\s|^)-)-?(?<name>(?:[A-Za-z0-9]+-)*(?:password|passwd|pass|token|api-key|apikey|secret|client-secret|secret-key|access-key|account-key|auth-token|private-token|http-password|proxy-password|tlspassword))(?:=|[ \\t]+)${VALUE}`,
      'gi',
    ),
    // `--secret id=npmrc,src=…` (docker build) names a file, not a value.
    judge: (value, groups) =>
      !/^\w+=/.test(value) &&
      looksLikeSecret(value, isPasswordName(groups.name ?? '') ? 'password' : 'strong'),
  },
  {
    id: 'mysql-password',
    keywords: ['mysql', 'mariadb'],
    pattern: new RegExp(`\\b(?:mysql\\w*|mariadb\\w*)\\b[^\\n|;&]*?\\s-p(?!\\s)${VALUE}`, 'gd'),
    // A plain word (`-pdbpass` for a CI job's throwaway database) is kept, as for a named password.
    judge: (value) => looksLikeSecret(value, 'password'),
  },
  {
    id: 'sshpass',
    keywords: ['sshpass'],
    pattern: new RegExp(`\\bsshpass\\s+(?:-[a-oq-z]\\S*\\s+)*-p\\s*${VALUE}`, 'gd'),
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    id: 'redis-cli-password',
    keywords: ['redis-cli'],
    pattern: new RegExp(`\\bredis-cli\\b[^\\n|;&]*?\\s-a\\s+${VALUE}`, 'gd'),
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    id: 'openssl-pass',
    keywords: ['pass:'],
    pattern: new RegExp(`-pass(?:in|out)?\\s+pass:${VALUE}`, 'gd'),
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    id: 'gh-secret-body',
    keywords: ['gh secret', 'gh  secret'],
    pattern: new RegExp(`\\bgh\\s+secret\\s+set\\b[^\\n|;&]*?\\s(?:--body|-b)(?:=|\\s+)${VALUE}`, 'gd'),
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    id: 'registry-login-password',
    keywords: ['login'],
    pattern: new RegExp(
      `\\b(?:docker|podman|buildah|skopeo|helm registry|oras)\\s+login\\b[^\\n|;&]*?\\s-p\\s+${VALUE}`,
      'gd',
    ),
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    // echo "…" | docker login --password-stdin: the value piped in is the password.
    id: 'password-stdin-echo',
    keywords: ['password-stdin'],
    pattern: new RegExp(
      `\\b(?:echo|printf)\\s+(?:-n\\s+)?${VALUE}\\s*\\|\\s*(?:sudo\\s+)?[\\w./-]+(?:\\s+[\\w./-]+)?\\s+login\\b[^\\n|;&]*--password-stdin`,
      'gd',
    ),
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    id: 'htpasswd-batch',
    keywords: ['htpasswd'],
    pattern: new RegExp(
      `\\bhtpasswd(?:\\s+-[A-Za-z]+)*\\s+-[A-Za-z]*b[A-Za-z]*(?:\\s+-[A-Za-z]+)*\\s+\\S+\\s+\\S+\\s+${VALUE}`,
      'gd',
    ),
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    // curl -u user:pass, -uuser:pass, --user "user:pass", --user kevin:'pass', --proxy-user (on the command's next line too, after a
    // `\` continuation): the part after the colon
    id: 'curl-user',
    keywords: ['curl', 'wget'],
    pattern:
      /\b(?:curl|wget)\b(?:[^\n]|\\\n)*?\s(?:-[uU]\s*|(?:--user|--http-user|--proxy-user)(?:=|\s+))["']?(?<user>[^\s:"']*):["']?(?<secret>[^\s"'@]+)/dg,
    // `<user:password>`, `neo4j:[PASSWORD]`, `{user}:{pass}`: a slot, with its brackets split by the colon.
    judge: (value, groups) =>
      !/^[<[{]/.test(groups.user ?? '') &&
      !/[>\]}]$/.test(value) &&
      !isAllowedValue(value) &&
      value.length >= 4,
  },
  {
    id: 'aws-configure-set',
    keywords: ['aws configure'],
    pattern: new RegExp(
      `\\baws\\s+configure\\s+set\\s+(?<name>[\\w.]*(?:secret|token|key)[\\w.]*)\\s+${VALUE}`,
      'gdi',
    ),
    judge: (value, groups) => !/_id$/i.test(groups.name ?? '') && !isAllowedValue(value),
  },
  {
    // .netrc: machine HOST login USER password PASSWORD (on one line or several)
    id: 'netrc-password',
    keywords: ['machine'],
    pattern: /\bmachine\s+\S+\s+login\s+\S+\s+password\s+(?<secret>[^\s"'`]+)/dg,
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    id: 'vault-unseal-key',
    keywords: ['unseal'],
    pattern: /\bvault\s+operator\s+unseal\s+(?:-\S+\s+)*(?<secret>[A-Za-z0-9+/]{40,}={0,2})(?![\w+/=])/dg,
    judge: (value) => !isAllowedValue(value),
  },
  {
    // new DirectoryEntry("LDAP://…", "user", "password") (.NET)
    id: 'directory-entry-password',
    keywords: ['directoryentry'],
    pattern: /\bDirectoryEntry\s*\(\s*"[^"\n]*"\s*,\s*"[^"\n]*"\s*,\s*"(?<secret>[^"\n]+)"/dgi,
    judge: (value) => !isAllowedValue(value) && value.length >= 4,
  },
  {
    // -Dsonar.login=…, $sonarLogin = "…": SonarQube's login is a token.
    id: 'sonar-login',
    keywords: ['sonar'],
    pattern: /sonar[._-]?login["']?\s*[=:]\s*["']?(?<secret>[^\s"'`]+)/dgi,
    judge: (value) => looksLikeSecret(value, 'weak'),
  },
  {
    id: 'jenkins-crumb',
    keywords: ['jenkins-crumb'],
    pattern: /\bJenkins-Crumb["']?\s*[:=]\s*["']?(?<secret>[A-Za-z0-9]{20,})/dgi,
    judge: (value) => looksLikeSecret(value, 'weak'),
  },
  {
    id: 'codeclimate-reporter-id',
    keywords: ['reporter_id'],
    pattern: /\bCC_TEST_REPORTER_ID["']?\s*[:=]\s*["']?(?<secret>[a-f0-9]{64})(?![\w])/dgi,
    judge: (value) => !isAllowedValue(value),
  },
  {
    // An AWS key id and, within 40 characters after it, the 40 characters of its secret key.
    id: 'aws-key-pair',
    keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'],
    pattern:
      /(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])[\s\S]{1,40}?(?<![A-Za-z0-9/+=])(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dg,
    judge: (value) =>
      /\d/.test(value) && /[A-Za-z]/.test(value) && entropy(value) >= 3.5 && !isAllowedValue(value),
  },
  {
    // scheme://user:password@host (a scheme of at most 32 characters: see secret-assignment's names). A
    // password may hold an unescaped `/` (an AWS secret key pasted in) when a host follows the `@`; a
    // port before the `/` is a host's (`http://localhost:8080/users/@me`). Bounded (six slashes, 100
    // characters between): a run of `x://u:a/` with no `@` took time growing with its square. The pattern
    // starts at `://` and reads the scheme back from there: a scheme first was tried at every word, read
    // to its end (2% of a checkpoint's redaction; its scan is a fifth of that now).
    id: 'url-credentials',
    keywords: ['://'],
    pattern:
      /:\/\/(?<=\b[a-z][a-z0-9+.-]{0,31}:\/\/)(?<user>[^\s:/@'"]*):(?:(?<secret>[^\s@/'"]{1,100}(?:\/[^\s@/'"]{0,100}){1,6})@(?=[\w.-]+(?::\d+)?(?:[/\s"'?#,;)\]]|$))|(?<secret2>[^\s@/'"]+)@)/gi,
    judge: (value) =>
      !isAllowedValue(value) && value.length >= 4 && !/^\$/.test(value) && !/^\d*\//.test(value),
  },
  {
    // A token alone as a URL's userinfo (`https://TOKEN@github.com/o/r.git`, as git and CI scripts write
    // it): a user name (`git@`, `alice@`) is not generated-looking, so it stays. Bounded to 200
    // characters, and the host after the `@` is required.
    id: 'url-token-userinfo',
    keywords: ['://'],
    pattern:
      /\b(?:https?|git|ssh|git\+https|git\+ssh|ftps?|wss?):\/\/(?<secret>[^\s:/@'"]{12,200})@(?=[\w-]+(?:\.[\w-]+)*(?::\d+)?(?:[/\s"'?#,;)\]]|$))/dgi,
    judge: (value) => looksLikeSecret(value, 'weak'),
  },
  {
    // Sidekiq Enterprise: both halves of the userinfo are the credential. (At most 16 spaces each side of
    // the sign: a lookbehind with `\s*` read every run of spaces back from each of its characters, 7 s for 60 KB.)
    id: 'sidekiq-credentials',
    keywords: ['contribsys'],
    pattern:
      /(?:(?<=https?:\/\/)(?<secret>[a-f0-9]{8}:[a-f0-9]{8})(?=@(?:gems|enterprise)\.contribsys\.com)|(?<=BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM["']?\s{0,16}[=:]\s{0,16}["']?)(?<secret2>[a-f0-9]{8}:[a-f0-9]{8}))/dgi,
    judge: () => true,
  },
  {
    id: 'url-query-secret',
    keywords: ['='],
    pattern:
      /[?&;](?<name>access_token|refresh_token|id_token|token|api_key|apikey|api-key|key|secret|client_secret|password|passwd|pwd|sig|signature|auth|auth_token|private_token|code_verifier)=(?<secret>[^&\s#"'<>]+)/gi,
    judge: (value, groups) =>
      looksLikeSecret(value, /^(?:key|sig|signature|auth)$/i.test(groups.name ?? '') ? 'weak' : 'strong'),
  },
  {
    id: 'telegram-bot-url',
    keywords: ['/bot'],
    pattern: /(?<=\/bot)(?<secret>\d{8,10}:AA[\w-]{33})/dg,
    judge: () => true,
  },
  {
    // Authorization: Bearer|Basic|Token|SSWS|… value, and the API-key headers
    id: 'auth-header',
    keywords: ['authorization', 'api-key', 'token:', 'auth-token', 'apikey'],
    pattern:
      /\b(?:authorization|proxy-authorization)["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Bot|Digest|SSWS|Negotiate|ApiKey|Api-Key|GenieKey|Splunk|OAuth)\s+)?(?<secret>[^\s"',;]+)/gi,
    judge: (value) => value.length >= 8 && looksLikeSecret(value, 'weak'),
  },
  {
    id: 'bearer-token',
    keywords: ['bearer'],
    pattern: /\bBearer\s+(?<secret>[A-Za-z0-9._~+/=-]{16,})/dg,
    judge: (value) => looksLikeSecret(value, 'weak'),
  },
  {
    // "the password is …", "reset the root password to …", "token was …", "passphrase is: …"
    id: 'prose-cue',
    keywords: ['pass', 'pwd', 'token', 'key', 'secret', 'pin', 'cred'],
    pattern: new RegExp(
      String.raw`\b(?:password|passphrase|passcode|passwd|pwd|pass|token|api[ _-]?key|secret(?:[ _-]key)?|client[ _-]secret|access[ _-]key|pin|credentials?)\b(?=\s+[(iwasrctfo])(?:\s+(?:for|of|on)(?:\s+[\w.-]+){1,3})?\s+${VERB}\s*:?\s*(?:"(?<secret>[^"\n]+)"|'(?<secret2>[^'\n]+)'|“(?<secret4>[^”\n]+)”|(?<secret3>[^\s"'”,;]+?))(?=[\s,;)]|[.!?](?:\s|$)|$)`,
      'gi',
    ),
    judge: strong,
  },
  {
    // "Set DB_PASSWORD to …", "the AWS_SECRET_ACCESS_KEY is …": a secret's name written as a name in prose.
    id: 'prose-named-value',
    keywords: ['pass', 'pwd', 'secret', 'token', 'key', 'auth', 'cred'],
    // The pattern starts with the secret word (a cheap test at each character) and reads the start of the
    // name backwards from there, as secret-flag does; a lookbehind first would run at every character.
    // The lookahead after the word wants a blank and a verb's first letter before the name is read back
    // (a condition of the match: the rest of the name, a backtick, blanks, then VERB).
    pattern: new RegExp(
      String.raw`(?:pass|pwd|secret|token|key|auth|cred)(?=[\w.-]{0,63}\x60?\s+[(iwasrct])(?<=(?:^|[^\w.-])\x60?(?<name>[A-Za-z][\w.-]{0,63}))(?<post>[\w.-]{0,63})\x60?\s+${VERB}\s*:?\s*(?:"(?<secret>[^"\n]+)"|'(?<secret2>[^'\n]+)'|\x60(?<secret4>[^\x60\n]+)\x60|(?<secret3>[^\s"'\x60,;()]+?))(?=[\s,;)]|[.!?](?:\s|$)|$)`,
      'gi',
    ),
    judge: (value, groups) => {
      const strength = nameStrength(`${groups.name ?? ''}${groups.post ?? ''}`);
      return strength !== null && looksLikeSecret(value, strength);
    },
  },
  {
    // "Please use the following password to proceed:" and the value alone on a line below (a console's
    // output): a generated value, with a digit. The pattern starts at a colon that ends a line, and reads
    // the cue word back from there (a lookbehind first would run at every character).
    id: 'prose-value-below',
    keywords: ['pass', 'token', 'key', 'secret'],
    requires: ['\n'],
    pattern:
      /:(?=[ \t]*\n)(?<=\b(?:password|passphrase|token|api[ _-]?key|secret)\b[^\n]{0,80}:)[ \t]*\n(?:[ \t]*\n)?[ \t]*(?<secret>[A-Za-z0-9+/=_.~-]{8,})[ \t]*(?=\n|$)/dgi,
    judge: (value) => /\d/.test(value) && strong(value),
  },
  {
    // "used API key …", "with token …", "user demo / pass …"
    id: 'prose-use',
    keywords: ['key', 'token', 'pass', 'pw', 'login'],
    pattern:
      /\b(?:(?:used|use|using|with|tried)\s+(?:the\s+)?(?:api[ _-]?key|token|password|key)\b|(?:user(?:name)?|login)\s+\S+\s*(?:\/|,|and)\s*(?:pass(?:word)?|pw|pwd)\b|(?:user(?:name)?|login)\s+[\w.@-]+\s+\/(?=\s))\s*[:=]?\s*["']?(?<secret>[^\s"',;]+?)["']?(?=[\s,;)]|[.!?](?:\s|$)|$)/dgi,
    // Not a reference to an issue or a pull request after the words (`with API key (#1119)`).
    judge: (value) => !/^\(?#\d/.test(value) && strong(value),
  },
  {
    // A password named in prose or chat with no verb before it (issue 26, audit item 9): "the password
    // Xk9m…", "the root password for prod Xk9m…", "my password's …", "pw: hunter2", "Password Xk9m…
    // works". Written with a sign or `'s`, a chosen password passes (as after `password:`); with a blank
    // alone, only a value of letters and digits (and symbols) of 8 characters or more, not a term
    // (`SHA-256`, `2FA-codes`), since prose puts any word there ("the password field").
    id: 'prose-password',
    keywords: ['pass', 'pw'],
    pattern:
      /\b(?:password|passwd|passphrase|pw|pwd)(?<=(?:^|[^\w/.$-])[a-z]{2,10})(?<sep>['\u2019]s[ \t]+|[ \t]*:[ \t]*|[ \t]+=[ \t]+|(?:[ \t]+(?:for|of|on)(?:[ \t]+[\w.-]+){1,3})?[ \t]+)(?<secret>[^\s"'\x60,;()<>[\]{}/$%&~.*#@-][^\s"'\x60,;()<>[\]{}]*?)(?=[\s,;)]|[.!?](?:\s|$)|$)/dgi,
    judge: (value, groups) => {
      if (/[:=]|['\u2019]s/.test(groups.sep ?? '')) return strong(value);
      return (
        value.length >= 8 &&
        /[A-Za-z]/.test(value) &&
        /\d/.test(value) &&
        !/^\d/.test(value) &&
        !/^(?:sha|md|aes|rsa|utf|pbkdf|argon|scrypt|bcrypt|hmac|crc|base|des|ecdsa|ed)[-_]?\d/i.test(value) &&
        // A class or component's name, not a value: "the password Validator2 test", "MyComponent2".
        !/^(?:[A-Z][a-z]+)+\d{1,2}$/.test(value) &&
        strong(value)
      );
    },
  },
  {
    // A value with nothing in its own shape that says secret (hex, a UUID, letters and digits of one
    // case), in a sentence whose words do: "Rotated the leaked credential 3c0c39…", "Found 6dca64… in
    // settings.py; revoked it", "with a6264401-e60a-… as the heroku credential" (issue 26). The pattern
    // finds the cue word; the values within 80 characters of it on its line are read from there (a
    // pattern that reached for them backtracked over every gap: a fifth of the whole detector's time).
    id: 'prose-cued-value',
    keywords: CUE_KEYWORDS,
    pattern: new RegExp(CREDENTIAL_CUE, 'g'),
    matchesCharBefore: true,
    near: { chars: 80, value: CUED_VALUE },
    judge: (value, groups) => !NAMED_BEFORE.test(groups.before ?? '') && isCuedValue(value),
  },
  {
    // A secret's name as one argument, its value as the next: `os.environ.get("API_TOKEN", "dafa…")`,
    // `GetEnvOrDefault("api_token", "…")`, `config.get('password', '…')` (a default written in code).
    id: 'name-argument-value',
    keywords: ['pass', 'pwd', 'secret', 'token', 'key', 'auth', 'cred'],
    requires: ['(', ','],
    pattern:
      /\(\s*(?<q>["'])(?<name>[\w.-]*(?:pass|pwd|secret|token|key|auth|cred)[\w.-]*)\k<q>\s*,\s*(?<q2>["'])(?<secret>[^"'\n]+)\k<q2>\s*\)/dgi,
    judge: (value, groups) => {
      const strength = nameStrength(groups.name ?? '');
      return strength !== null && looksLikeSecret(value, strength);
    },
  },
  {
    // A secret's name glued to its value by a dash: `dd_secret_key-3c0c39…`, `cloudmersive-secret-key-
    // 123e…`, `hellosignACCESS-TOKEN-ksdf…` (scanners' examples, names of files and keys). Only a value
    // that prose-cued-value would take, and 20 characters or more: `api-key-v2`, `token-2fa` are names.
    id: 'name-dash-value',
    keywords: ['secret', 'token', 'key', 'access'],
    pattern:
      /(?:secret|token|key|access)-(?<=(?:^|[^\w./-])(?<name>[A-Za-z][\w-]{0,63})-)(?<secret>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[A-Za-z0-9][A-Za-z0-9+/_]{19,254}={0,2})(?![\w+/=.-])/dgi,
    // The value is a UUID or one run, never words and an id joined by dashes (`access-requests-94b2…` in
    // a URL's path); the pattern says so itself, so that a failed value does not hide the next keyword.
    // The dash is matched before the name is read back: most keywords are not followed by one.
    judge: isCuedValue,
  },
  {
    // A secret's name then the value after a space, no sign between: "tyntec SECRET b19a…", "the paypal key
    // EDe5…", "owlbot TOKEN 8a5d…", "swell token - 'Mkff…'" (scanners' examples, log lines, prose). Only a generated-looking value
    // with a digit: a word after "key" is a sentence going on. Quoted, it may hold symbols, not spaces
    // (`nethunt token - 'ai$oy@v8w9-…'`). Starts at the word, and reads the name back only when the
    // lookahead finds what must follow it: the blanks, and 16 characters of a value (either form's).
    id: 'name-space-value',
    keywords: ['secret', 'token', 'key', 'access', 'private', 'pass'],
    pattern:
      /(?:secret|token|key|access|private|password|passwd)(?=(?:[ \t]+(?:key|token|secret))?(?:[ \t]+-)?[ \t]+["']?[^\s"']{16})(?<=(?:^|[^\w.-])(?<name>[A-Za-z][\w-]{0,63}))(?:[ \t]+(?:key|token|secret))?(?:[ \t]+-)?[ \t]+(?:(?<q>["']?)(?<secret>[A-Za-z0-9][A-Za-z0-9+/_.~=-]{15,255})\k<q>|(?<q2>["'])(?<secret2>[^\s"']{16,255}) ?\k<q2>)(?=[\s,;)]|[.!?](?:\s|$)|$)/gi,
    judge: (value, groups) => {
      const name = groups.name ?? '';
      const strength = /(?:access|private)$/i.test(name) ? 'weak' : nameStrength(name);
      return (
        strength !== null &&
        /\d/.test(value) &&
        /[A-Za-z]/.test(value) &&
        !/^\d+(?:\.\d+)+$/.test(value) &&
        looksLikeSecret(value, 'weak')
      );
    },
  },
  {
    // echo 'value' > ~/.config/x/credentials, printf … >> .env: a value written into a file named for one.
    id: 'echo-to-secret-file',
    keywords: ['echo', 'printf'],
    pattern: new RegExp(
      `\\b(?:echo|printf)\\s+(?:-[neE]+\\s+)?${VALUE}\\s*>>?\\s*[\\w./~$-]*(?:credential|token|secret|passw|apikey|api_key|\\.env|netrc|\\.key\\b)`,
      'dgi',
    ),
    judge: (value) => looksLikeSecret(value, 'weak'),
  },
  {
    // A quoted value that can only be generated: long, upper and lower case and digits, near-random.
    // No name gives it away ('x9Lk…' after a service's name, a token echoed in a log): issue 26.
    id: 'quoted-random',
    keywords: ['"', "'"],
    // Not an id's value (`"shareId": "FWxc1las…"`, `folder_id = '0BxAe_…'`): a random-looking id names a thing.
    pattern:
      /(?<![\w\\])(?<!(?:[a-z0-9]Ids?|ID|[_.-]ids?)["']?\s*[:=]\s*)(?<q>["'])(?<secret>[A-Za-z0-9+/_=-]{24,256})\k<q>/g,
    judge: (value) => isRandomValue(value, 4.2),
  },
  {
    // The same value bare, between spaces, brackets or punctuation: "Found x9Lk… committed in …", "Left
    // x9Lk… in .env.local" (an agent's summary). Starts at the space or bracket before it, and looks back
    // for `=` or `:` only from there (a lookbehind at every character, or before the class, costs twice as
    // much); takes the run whole (a lookahead, so it never backtracks into it), and wants a capital and a
    // digit in it before the judge runs (most runs are hashes and ids).
    id: 'bare-random',
    keywords: [' '],
    // Not a value alone on its line (a line of a PGP or key block, a digest printed by a tool), nor one
    // after `=` or `:` (an assignment, which the names decide), nor a public key's body (`AAAA…`) or a
    // publishable key (`pk_live_…`). At most 64 spaces are read back for the `=` or `:`: unbounded, the
    // lookbehind read a run of spaces back from each of its characters (7 s for 60 KB of spaces).
    pattern:
      /(?:^|[\s([{<>,;|](?<![=:][^\S\n]{0,64}[\s([{<>,;|]))(?=(?<secret>[A-Za-z0-9][A-Za-z0-9+/_-]{19,255}={0,2}))\k<secret>(?=[\s)\]}>,;|]|[.!?:](?:\s|$)|$)(?<=[A-Z][\w+/=-]*)(?<=\d[\w+/=-]*)(?:(?<=\S[^\S\n]+\S+)|(?=[^\n]*?[^\s.!?:]))/g,
    judge: (value) => !/^(?:AAAA|pk_(?:live|test)_)/.test(value) && isRandomValue(value, 4),
  },
];

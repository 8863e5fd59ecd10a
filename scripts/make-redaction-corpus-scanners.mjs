#!/usr/bin/env node
// Writes test/fixtures/redaction-corpus-scanners.json, the sixth redaction corpus (issue 26): texts and
// secrets from public repositories that no earlier corpus used, each item naming its repository, commit
// and file (or commit). Run against local snapshots of the repositories (the `fetch` of this project's
// tooling put them in one folder, `<owner>+<name>/repo` each; name it as the first argument or in
// CORPUS_MIRRORS). Needs python3 with PyYAML, to read semgrep's rule files and run their patterns, and to
// generate values from Microsoft's published patterns.
//
//   Benign (must come out unchanged), from docker/cli, nektos/act and pypa/twine: commit messages (subject
//   and body lines: the summaries an agent writes), changelog entries, the prose, shell and config lines
//   and whole shell blocks of their docs (Markdown, and twine's reStructuredText), GitHub workflow lines
//   (`run:` steps as commands; act's test workflows too), and script lines. Plus the scanners' own
//   negative cases that are not credentials (semgrep-rules' `ok:` cases of its secrets rules, ripsecrets'
//   `test/none`; NOT_BENIGN names the ones left out, and why), and scanner examples whose every value is
//   a placeholder.
//   Secrets (must be redacted): the `ruleid:` cases of semgrep/semgrep-rules' secrets rules
//   (generic/secrets/**), the secret being what the rule's own regex captures (its named group, else its
//   longest group that is a value: see `captured`; for a rule without a regex, the value assigned, else
//   the longest run without spaces);
//   sirwart/ripsecrets' test files of secrets (test/one_per_line: each line; test/one_per_file: the
//   file); and values generated (fixed seed) from microsoft/security-utilities' published patterns
//   (GeneratedRegexPatterns: high-confidence and precisely classified keys whose pattern needs no
//   context), since its own test keys are runs of one letter (`aaaa…+ARmD7h+qo=`). Each scanner example
//   is kept as written (kind `scanner-example`) and, when it is one line, also written into one everyday
//   shape (SHAPES, chosen by the sha256 of the secret), kind `command` or `prose`; a generated value is
//   written into one shape only.
//
// Rules fixed before the detector ran on any item:
//   - benign lines of 12 to 400 characters (shell blocks up to 1,500), deduplicated, none that an earlier
//     corpus holds; no benign text is dropped for looking like a secret;
//   - two strata per family, `cue` (a word or shape detectors react to, CUE as in the fourth corpus) and
//     `plain`; at most LIMITS of each per repository and family, chosen by a salted sha256 of the text;
//   - rules that find an identifier or a hash, not a secret (ids ending in `-id`, `client-id`,
//     `account-id`, bcrypt and shadow hashes) are left out;
//   - a secret that an earlier corpus holds, or whose example text it holds, is left out;
//   - an example whose every secret is a placeholder (the fifth corpus's test, isPlaceholder, plus a name
//     in capitals, a character repeated eight times, a block repeated) is benign (scanner-placeholder); a secret of letters only or words joined by `_`, `-` or a space is
//     `strength: "word"`, counted apart; secrets shorter than 8 characters are left out;
//   - the shapes are new sentences and commands of the kinds the fifth corpus used, not its own.
// Changed after the first run, in both parts, for secrets that could never count as redacted (the held-
// out part was measured again, counts only, before any change to the detector): `name=value` after a
// `:` (`//registry/:_authToken=…`, `artifactoryx:_password=…`) took `_authToken=` as the value, and a
// named group of 8 characters inside one unbroken value (jwt-base64) took that piece alone.
// The split into tuning and held-out parts is by sha256(text): first hex digit 0-7 tuning, 8-f held out.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  CONFIG_FENCES,
  collectRepository,
  envName,
  isPlaceholder,
  markdownParts,
  SHELL_FENCES,
  sha,
  startCorpus,
  WORDS,
  writeCorpus,
} from './redaction-corpus-common.mjs';

// Texts and secrets of the earlier corpora: none is used again.
const { repo, earlier, earlierSecrets, benign, collector } = startCorpus('redaction-corpus-scanners.json');

// ── Benign ────────────────────────────────────────────────────────────────────────────────────────────
const CONFIG = new Set([...CONFIG_FENCES, 'cfg']);

/** The same parts of a reStructuredText file: `.. code-block:: x` blocks (indented) and prose. */
function rstParts(text) {
  const parts = { shellLines: [], shellBlocks: [], configLines: [], prose: [] };
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const directive = /^(\s*)\.\. (?:code-block|code|sourcecode)::\s*(\w*)/.exec(line);
    if (directive) {
      const language = directive[2].toLowerCase();
      const outer = directive[1].length;
      const block = [];
      let j = i + 1;
      for (; j < lines.length; j++) {
        if (!lines[j].trim()) {
          if (block.length) block.push('');
          continue;
        }
        if (/^\s*/.exec(lines[j])[0].length <= outer) break;
        if (/^\s*:\w+:/.test(lines[j]) && block.length === 0) continue;
        block.push(lines[j].trim());
      }
      const body = block.filter((l, k) => l || k < block.length - 1);
      if (SHELL_FENCES.has(language)) {
        for (const l of body) if (l) parts.shellLines.push(l.replace(/^(?:\$|>|PS>)\s+/, ''));
        if (body.filter(Boolean).length > 1) parts.shellBlocks.push(body.join('\n').trim());
      } else if (CONFIG.has(language)) for (const l of body) if (l) parts.configLines.push(l);
      i = j - 1;
      continue;
    }
    if (line.trim() && !/^\s*(?:\.\.|[=\-^~`#*+]{3,}\s*$|:\w+:)/.test(line)) parts.prose.push(line.trim());
  }
  return parts;
}

const LIMITS = {
  'commit-message': { cue: 150, plain: 120 },
  changelog: { cue: 60, plain: 40 },
  'docs-prose': { cue: 120, plain: 60 },
  'docs-shell': { cue: 150, plain: 60 },
  'docs-shell-block': { cue: 30, plain: 10 },
  'docs-config': { cue: 100, plain: 40 },
  'workflow-run': { cue: 60, plain: 30 },
  workflow: { cue: 80, plain: 20 },
  script: { cue: 80, plain: 40 },
};
const REPOS = [
  {
    name: 'docker/cli',
    isDoc: (file) => /^(docs\/.*\.md|man\/.*\.md|README\.md|CONTRIBUTING\.md|TESTING\.md)$/.test(file),
    isChangelog: () => false,
    isScript: (file) =>
      /^(scripts\/.*|Makefile|docker\.Makefile|contrib\/completion\/bash\/docker)$/.test(file),
    isWorkflow: (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file),
  },
  {
    name: 'nektos/act',
    isDoc: (file) => /^[^/]+\.md$/.test(file),
    isChangelog: () => false,
    isScript: (file) => /^(Makefile|install\.sh)$/.test(file),
    // act's own workflows and the workflows it runs in its tests (secrets, env, `run:` steps).
    isWorkflow: (file) =>
      /^\.github\/workflows\/.*\.ya?ml$|^pkg\/runner\/testdata\/.*\.ya?ml$/.test(file) &&
      !/node_modules/.test(file),
  },
  {
    name: 'pypa/twine',
    isDoc: (file) => /^(docs\/[^/]+\.rst|README\.rst)$/.test(file) && !/changelog/.test(file),
    isChangelog: (file) => /^(docs\/changelog\.rst|changelog\/.*\.rst)$/.test(file),
    isScript: (file) => /^(tox\.ini)$/.test(file),
    isWorkflow: (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file),
  },
];
for (const spec of REPOS) {
  const found = collector(LIMITS);
  collectRepository(repo(spec.name), spec, found, {
    docParts: (file, text) =>
      file.endsWith('.rst') ? rstParts(text) : markdownParts(text, { shell: SHELL_FENCES, config: CONFIG }),
  });
  found.flush();
}

// ── Scanners' examples: secrets, negatives and placeholders ───────────────────────────────────────────
// One Python pass: reads semgrep's rule YAML and runs each rule's regexes on its `ruleid:` cases, and
// generates values from Microsoft's patterns (a walk of the parsed pattern, random choices, fixed seed).
const PYTHON = String.raw`
import json, random, re, subprocess, sys, yaml
try:
    import re._parser as sre_parse, re._constants as sre_c
except ImportError:
    import sre_parse, sre_constants as sre_c
sg, ms = sys.argv[1], sys.argv[2]
git = lambda repo, *a: subprocess.check_output(['git', '--git-dir', repo, *a])
def regexes(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ('pattern-regex',) and isinstance(v, str): yield v
            else: yield from regexes(v)
    elif isinstance(node, list):
        for v in node: yield from regexes(v)
def compile_(pattern):
    pattern = re.sub(r'\(\?<(\w+)>', r'(?P<\1>', pattern)
    flags = 0
    def strip(m):
        nonlocal flags
        for c in m.group(1): flags |= {'i': re.I, 's': re.S, 'x': re.X, 'm': re.M, 'u': 0}[c]
        return ''
    pattern = re.sub(r'\(\?([isxmu]+)\)', strip, pattern)
    return re.compile(pattern, flags)
out = {'semgrep': [], 'microsoft': [], 'failed': []}
files = [f for f in git(sg, 'ls-tree', '-r', '--name-only', 'HEAD', 'generic/secrets').decode().split('\n') if f]
rules = {}
for f in files:
    if not f.endswith('.yaml'): continue
    for r in yaml.safe_load(git(sg, 'show', 'HEAD:' + f)).get('rules', []):
        compiled = []
        for p in regexes(r.get('patterns') or r.get('pattern-either') or r):
            try: compiled.append(compile_(p))
            except Exception: out['failed'].append(r['id'])
        rules[r['id']] = compiled
for f in files:
    if f.endswith('.yaml'): continue
    lines = git(sg, 'show', 'HEAD:' + f).decode('utf8', 'replace').split('\n')
    for i, line in enumerate(lines):
        m = re.match(r'\s*(?:#|//|<!--)\s*(ruleid|ok|todoruleid|todook)\s*:\s*([\w.-]+)', line)
        if not m: continue
        case = []
        for nxt in lines[i + 1:]:
            if re.match(r'\s*(?:#|//)\s*(ruleid|ok|todoruleid|todook)\s*:', nxt) or (not nxt.strip() and case): break
            if not nxt.strip(): continue
            case.append(nxt)
            if not case[0].lstrip().startswith('-----BEGIN'): break
        text = '\n'.join(case)
        matches = []
        for rx in rules.get(m.group(2), []):
            for mm in rx.finditer(text):
                matches.append({'named': next((v for v in mm.groupdict().values() if v), None), 'groups': [g for g in mm.groups() if g], 'whole': mm.group(0)})
        out['semgrep'].append({'file': f, 'id': m.group(2), 'label': m.group(1), 'text': text, 'matches': matches})
def generate(node, rng):
    s = ''
    for op, av in node:
        if op == sre_c.LITERAL: s += chr(av)
        elif op == sre_c.IN:
            chars = []
            for kind, v in av:
                if kind == sre_c.LITERAL: chars.append(chr(v))
                elif kind == sre_c.RANGE: chars.extend(chr(c) for c in range(v[0], v[1] + 1))
            s += rng.choice(chars)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, sub = av
            hi = lo + 2 if hi == sre_c.MAXREPEAT else hi
            for _ in range(rng.randint(lo, hi)): s += generate(sub, rng)
        elif op == sre_c.SUBPATTERN: s += generate(av[-1], rng)
        elif op == sre_c.BRANCH: s += generate(rng.choice(av[1]), rng)
        elif op == sre_c.AT: pass
        else: raise ValueError(op)
    return s
rng = random.Random(20261202)
for name in ['HighConfidenceSecurityModels.json', 'PreciselyClassifiedSecurityKeys.json']:
    for r in json.loads(git(ms, 'show', 'HEAD:GeneratedRegexPatterns/' + name)):
        pattern = r.get('Pattern', '')
        m = re.search(r'\(\?P<refine>', pattern)
        # Only patterns whose key stands alone: no context before it that a value would have to invent.
        if not m or '.+' in pattern or '.*' in pattern: continue
        try:
            rx = re.compile(pattern)
            parsed = sre_parse.parse(pattern)
            refine = next(av for op, av in parsed if op == sre_c.SUBPATTERN and av[0] == rx.groupindex['refine'])
        except Exception:
            out['failed'].append(r['Id']); continue
        for n in range(2):
            value = generate(refine[-1], rng)
            found = rx.search(' ' + value + ' ')
            if found and found.group('refine') == value:
                out['microsoft'].append({'id': r['Id'], 'name': r['Name'], 'file': 'GeneratedRegexPatterns/' + name, 'value': value})
json.dump(out, sys.stdout)
`;

/** Words, not a random run of letters (`api_org_SsoVOUjCvLH…`): each part short, or words in camel case. */
const isWordPassword = (secret) =>
  WORDS.test(secret) &&
  secret.split(/[-_ :]/).every((part) => part.length <= 12 || /^(?:[A-Z]?[a-z]+)+$/.test(part));
/** Rules that find an identifier or a hash, not a secret one could use. */
// (A Google service account's rule finds the file by its `"type": "service_account"` line, not a secret.)
const NOT_SECRET_RULE = /(?:-id|client-id|account-id|bcrypt-hash|etc-shadow|gcm-service-account)$/;

/**
 * Scanners' negative cases left out of the benign texts, read before the detector ran: each holds a
 * value shaped and named like a real credential, which the scanner skips for a reason of its own.
 */
const NOT_BENIGN = [
  // ripsecrets skips it for the pragma comment, not for what it is: a Stripe live key's shape.
  /^sk_live_ReTllpYQYfIZu2Jnf2lAPFjD \/\/ pragma/,
  // ripsecrets skips it because the value is listed in its .secretsignore.
  /secret is in \.secretsignore$/,
  // semgrep skips these for a character added or changed, or a word in them (TEST, SAMPLE, FAKE), not
  // for what they are: a Google API key with `=` after it, AWS secret keys and a session token named as
  // such, SendGrid keys one character off.
  /^AIzaSyBGJlWlxZEnJ2yUape3AjqmNyo5xxh6xtI/,
  /^aws_secret_access_key:wJalrXUtnFEMI\/K7MDENG\/bPxRfiCYE(?:SATEST|SAMPLE|SAFAKE)KEY$/,
  /^export AWS_SESSION_TOKEN=SAMPLE/,
  /^(?:SG|PE)\.?ngeVfQFYQlKU0ufo8x5d1/,
];

/** Everyday shapes a secret turns up in: a command line an agent runs, or a sentence of its summary. */
const SHAPES = [
  ['command', (s, n) => `${n}=${s} npm run test:integration`],
  ['command', (s) => `curl -fsSL -H "X-Api-Key: ${s}" https://status.internal.example.org/api/health`],
  ['command', (s, n) => `gh secret set ${n} --body '${s}' --repo acme/platform`],
  ['command', (s, n) => `printf '%s\\n' "${n}=${s}" >> .env`],
  ['command', (s, _n, p) => `helm upgrade --install ${p} ./chart --set auth.apiKey=${s}`],
  ['command', (s, n) => `env ${n}="${s}" python manage.py sync_accounts`],
  ['prose', (s) => `Rotated the leaked credential ${s} and opened a ticket with the security team.`],
  ['prose', (s, _n, p) => `The ${p} integration works again after I replaced the old value with ${s}.`],
  ['prose', (s, n) => `Note for next session: ${n} is ${s} in the staging environment.`],
  ['prose', (s, _n, p) => `Tests pass locally with ${s} as the ${p} credential; CI still needs it.`],
];

const positives = [];
const secretsSeen = new Set();
const scannerBenign = collector({
  'scanner-placeholder': { cue: 1000, plain: 1000 },
  'scanner-negative': { cue: 1000, plain: 1000 },
});
function addShaped({ secret, format, source, provider, ruleName, strength }) {
  if (/[\s\\]|:\/\//.test(secret)) return;
  const [kind, shape] = SHAPES[Number.parseInt(sha(`shape\0${secret}`).slice(0, 8), 16) % SHAPES.length];
  const shaped = shape(secret, envName(provider, ruleName), provider.toLowerCase());
  if (!earlier.has(shaped)) positives.push({ text: shaped, secret, format, kind, strength, source });
}
function addExample({ text, secrets, format, source, provider, ruleName }) {
  text = text.replace(/\s+$/, '');
  const cleaned = secrets
    .filter((secret) => typeof secret === 'string')
    .map((secret) =>
      secret
        // Quotes and escapes a pattern took in are not part of the value; of a URL, the secret is what
        // follows its host (and its first path segment when that is a word), as in the fourth corpus.
        .replace(/^[\\"'\s]+|[\\"'\s]+$/g, '')
        .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+\/(?:[a-z]+\/)?/i, '')
        // A URL written without its scheme (`hooks.slack.com/services/…`) likewise.
        .replace(/^[\w-]+(?:\.[\w-]+)*\.(?:com|net|org|io)\/(?:[a-z]+\/)?/i, ''),
    )
    .filter((secret) => secret.length >= 8 && text.includes(secret));
  if (cleaned.length === 0 || earlier.has(text.trim())) return;
  const real = cleaned.filter((secret) => !isPlaceholder(secret));
  if (real.length === 0) {
    scannerBenign.push('scanner-placeholder', 'code', text, source, 4000);
    return;
  }
  for (const secret of real) {
    if (earlierSecrets.has(secret) || secretsSeen.has(secret)) continue;
    secretsSeen.add(secret);
    const strength = isWordPassword(secret) ? 'word' : 'generated-or-chosen';
    if (text.length <= 4000)
      positives.push({ text, secret, format, kind: 'scanner-example', strength, source });
    addShaped({ secret, format, source, provider, ruleName, strength });
  }
}
/** The value a line assigns (`x = "v"`, `x: v`), else its longest run without spaces or quotes. */
function assignedValue(text) {
  const assigned = [...text.matchAll(/[=:]\s*["'`]?([^\s"'`,;)=:][^\s"'`,;):]{7,})/g)].at(-1)?.[1];
  // `:_authToken=value` (an .npmrc line): the value is what follows the name.
  if (assigned) return /^_?[A-Za-z]+(?:[_-][A-Za-z]+)*=(.{8,})$/.exec(assigned)?.[1] ?? assigned;
  return (text.match(/[^\s"'`]{8,}/g) ?? []).sort((a, b) => b.length - a.length)[0];
}
/**
 * The secret in what a rule's regex took: its named group (`SECRET`, `TOKEN`); else its longest group of 8 characters or
 * more that holds no quote, space or query and is neither a word (`services`) nor a name and `=`; else the
 * whole match, refined. A key block's header alone is no secret.
 */
function captured({ named, groups, whole }) {
  // A named group that took a piece of one unbroken value (jwt-base64's `NE5XTWlP`) stands for all of it.
  if (named && named.length < 16 && whole.length > named.length && !/[\s"'`]/.test(whole))
    return refine(whole);
  if (named) return refine(named);
  const clean = groups.filter(
    (g) =>
      g.length >= 8 &&
      !/[\s"'`>?&]|:\/\//.test(g) &&
      !/^[a-z]+$|^[^=]{0,15}=+$/i.test(g) &&
      !/^[A-Z_]+$/.test(g),
  );
  return refine(clean.sort((a, b) => b.length - a.length)[0] ?? whole);
}
/** Of a URL with credentials, the password; of a query, the secret parameter; of `name = value`, the value. */
function refine(value) {
  const secret = refineValue(value);
  return secret && !/^-----/.test(secret) ? secret : undefined;
}
function refineValue(value) {
  const element = /">([^\s"<]{8,})|<(\w+)>([^<]{8,})<\/\2>/.exec(value);
  if (element) return element[1] ?? element[3];
  const url = /[a-z][a-z0-9+.-]*:\/\/[^:/\s@]+:([^@\s/]+)@/i.exec(value);
  if (url) return url[1];
  const query = /[?&][\w-]*(?:secret|token|key)=([^&\s"']+)/i.exec(value);
  if (query) return query[1];
  if (/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(value)) return value;
  if (/^(?:\/\/[^\s]*?:)?[\w.-]+["'`]?\s*(?:=|:|\s)/.test(value) || /\s/.test(value))
    return assignedValue(value);
  return value;
}

const sg = repo('semgrep/semgrep-rules');
const ms = repo('microsoft/security-utilities');
const rs = repo('sirwart/ripsecrets');
const found = JSON.parse(
  execFileSync('python3', ['-c', PYTHON, sg.dir, ms.dir], { encoding: 'utf8', maxBuffer: 1 << 28 }),
);
if (found.failed.length) process.stderr.write(`patterns Python could not read: ${found.failed.join(', ')}\n`);
const perRule = new Map();
for (const item of found.semgrep) {
  const index = (perRule.get(item.id) ?? 0) + 1;
  perRule.set(item.id, index);
  const source = `${sg.source(item.file)} ${item.id} ${item.label} ${index}`;
  if (NOT_SECRET_RULE.test(item.id)) continue;
  if (/ok$/.test(item.label)) {
    if (!NOT_BENIGN.some((rule) => rule.test(item.text)))
      scannerBenign.push('scanner-negative', 'code', item.text, source, 4000);
    continue;
  }
  if (item.label !== 'ruleid') continue;
  const secrets = item.matches.length ? item.matches.map(captured) : [refine(item.text)];
  addExample({
    text: item.text,
    secrets,
    format: `semgrep ${item.id}`,
    source,
    provider: item.id.replace(/^detected-/, '').split('-')[0],
    ruleName: item.id,
  });
}
for (const [file, text] of rs.read(rs.files().filter((file) => /^test\//.test(file)))) {
  if (file === 'test/none') {
    for (const [index, line] of text.split('\n').entries())
      if (line.trim() && !NOT_BENIGN.some((rule) => rule.test(line)))
        scannerBenign.push('scanner-negative', 'code', line, `${rs.source(file)} line ${index + 1}`);
    continue;
  }
  const provider = path.basename(file);
  const cases = file.startsWith('test/one_per_file/')
    ? [[0, text.trim()]]
    : text.split('\n').map((line, index) => [index, line]);
  for (const [index, line] of cases) {
    if (!line.trim()) continue;
    // A key block is the secret whole; otherwise the value the line assigns, or the line's longest run.
    const block = /-----BEGIN[^\n]*-----\n([\s\S]*?)\n-----END/.exec(line)?.[1];
    // A whole file (an HTTP response) holds its secret under a name that says so.
    const named = /(?:key|secret|token|password)"?\s*[:=]\s*"?([^\s",]{8,})/i.exec(line)?.[1];
    const secret = block
      ? block.split('\n')[0]
      : index === 0 && cases.length === 1 && named
        ? named
        : refine(line);
    addExample({
      text: line,
      secrets: [secret],
      format: `ripsecrets ${provider}`,
      source: `${rs.source(file)} line ${index + 1}`,
      provider,
      ruleName: provider,
    });
  }
}
for (const item of found.microsoft) {
  if (earlierSecrets.has(item.value) || secretsSeen.has(item.value)) continue;
  secretsSeen.add(item.value);
  addShaped({
    secret: item.value,
    format: `microsoft ${item.id} ${item.name}`,
    source: `${ms.source(item.file)} ${item.id} ${item.name} (generated value)`,
    provider:
      item.name.replace(/(?:Identifiable|Legacy|CommonAnnotated|SecurityKey|Key|Pat|Credentials?).*$/, '') ||
      'azure',
    ruleName: item.name,
    strength: 'generated-or-chosen',
  });
}
scannerBenign.flush();

writeCorpus(
  'redaction-corpus-scanners.json',
  'Sixth redaction corpus (issue 26): docs, commits, workflows and scripts of docker/cli, nektos/act and pypa/twine; the secrets and negative cases of semgrep-rules and ripsecrets; values generated from Microsoft security-utilities patterns. No source an earlier corpus used; see scripts/make-redaction-corpus-scanners.mjs for the rules, all fixed before the detector ran. Split by the first hex digit of sha256(text): 0-7 tuning, 8-f held out.',
  benign,
  positives,
);

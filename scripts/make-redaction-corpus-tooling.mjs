#!/usr/bin/env node
// Writes test/fixtures/redaction-corpus-tooling.json, the seventh redaction corpus (issue 26): texts and
// secrets from public repositories that no earlier corpus used, each item naming its repository, commit
// and file (or commit). Run against local snapshots of the repositories (the `fetch` of this project's
// tooling put them in one folder, `<owner>+<name>/repo` each; name it as the first argument or in
// CORPUS_MIRRORS). Needs python3 with PyYAML, to read detect-secrets' tests and secrets-patterns-db's
// rules, and to generate values from those rules.
//
//   Benign (must come out unchanged), from the release and secret-scanning tooling agents run every day:
//   renovatebot/renovate, semantic-release/semantic-release, GitGuardian/ggshield, Yelp/detect-secrets,
//   thoughtworks/talisman and americanexpress/earlybird: commit messages (subject and body lines),
//   changelog entries, the prose, shell and config lines and whole shell blocks of their docs, GitHub
//   workflow lines (`run:` steps as commands), pre-commit and scanner config lines (`.talismanrc`
//   checksums, `.secrets.baseline` hashes, earlybird's false-positive rules), script lines, and lock-file
//   lines (renovate's lock-file fixtures, semantic-release's package-lock.json, ggshield's uv.lock and
//   Cargo.lock: integrity hashes, checksums, pinned versions). Plus detect-secrets' plugin tests' cases
//   that its detectors must not flag (`should_flag` False), less those NOT_BENIGN names.
//   Secrets (must be redacted): detect-secrets' plugin tests' cases that must be flagged (`should_flag`
//   True, or the `secret` a keyword case names), the secret being the value the line assigns (else the
//   line's longest run without spaces); and values generated (fixed seed) from mazen160/secrets-patterns-db's
//   rules of high confidence whose pattern stands alone (a literal prefix of 3 characters or more, no
//   context around the key), named as a key, token, secret or password. Each detect-secrets case is kept
//   as written (kind `scanner-example`) and, when one line, also written into one everyday shape (SHAPES,
//   chosen by the sha256 of the secret), kind `command` or `prose`; a generated value into one shape only.
//
// Rules fixed before the detector ran on any item:
//   - benign lines of 12 to 400 characters (shell blocks up to 1,500), deduplicated, none that an earlier
//     corpus holds; no benign text is dropped for looking like a secret (renovate's encrypted values, a
//     lock file's hashes stay);
//   - two strata per family, `cue` (a word or shape detectors react to, CUE as in the fourth corpus) and
//     `plain`; at most LIMITS of each per repository and family, chosen by a salted sha256 of the text;
//   - a secret that an earlier corpus holds, or whose example text it holds, is left out; a secret that is
//     a placeholder (isPlaceholder, as in the sixth corpus) makes its case benign (`scanner-placeholder`);
//     a generated value of under 12 characters is left out;
//     a secret of letters only or words joined by `_`, `-` or a space is `strength: "word"`, counted
//     apart; secrets shorter than 8 characters are left out;
//   - the shapes are new commands and sentences, none an earlier corpus used.
// The split into tuning and held-out parts is by sha256(text): first hex digit 0-7 tuning, 8-f held out.
import { execFileSync } from 'node:child_process';
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
const { repo, earlier, earlierSecrets, benign, collector } = startCorpus('redaction-corpus-tooling.json');

// ── Benign ────────────────────────────────────────────────────────────────────────────────────────────
const CONFIG = new Set([...CONFIG_FENCES, 'json5', 'jsonc', 'cfg', 'js', 'javascript']);

const LIMITS = {
  'commit-message': { cue: 120, plain: 60 },
  changelog: { cue: 60, plain: 30 },
  'docs-prose': { cue: 120, plain: 50 },
  'docs-shell': { cue: 80, plain: 40 },
  'docs-shell-block': { cue: 25, plain: 10 },
  'docs-config': { cue: 120, plain: 40 },
  'workflow-run': { cue: 40, plain: 20 },
  workflow: { cue: 60, plain: 20 },
  'scanner-config': { cue: 60, plain: 20 },
  script: { cue: 40, plain: 20 },
  lockfile: { cue: 90, plain: 30 },
};
const none = () => false;
const REPOS = [
  {
    name: 'renovatebot/renovate',
    isDoc: (file) => /^(docs\/.*\.md|README\.md|CONTRIBUTING\.md|SECURITY\.md)$/.test(file),
    isChangelog: none,
    isScript: (file) => /^tools\/[^/]+\.sh$/.test(file),
    isWorkflow: (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file),
    isScannerConfig: none,
    // The lock files renovate's tests update: what an agent reads and pastes when it pins a dependency.
    isLockfile: (file) =>
      /__fixtures__\//.test(file) &&
      /(\.lock|lock\.json|lock\.ya?ml|go\.sum|Package\.resolved|verification-metadata\.xml|requirements[^/]*\.txt)$/.test(
        file,
      ),
  },
  {
    name: 'semantic-release/semantic-release',
    isDoc: (file) => /^(docs\/.*\.md|[^/]+\.md)$/.test(file),
    isChangelog: none,
    isScript: none,
    isWorkflow: (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file),
    isScannerConfig: none,
    isLockfile: (file) => file === 'package-lock.json',
  },
  {
    name: 'GitGuardian/ggshield',
    isDoc: (file) =>
      /^(doc\/.*\.md|README\.md|CONTRIBUTING\.md|SECURITY\.md|actions[^/]*\/README\.md)$/.test(file),
    isChangelog: (file) => /^(CHANGELOG\.md|changelog\.d\/\d.*\.md)$/.test(file),
    isScript: (file) => /^(Makefile|scripts\/.*\.sh)$/.test(file),
    isWorkflow: (file) => /^(\.github\/workflows\/.*\.ya?ml|actions[^/]*\/secret\/action\.yml)$/.test(file),
    isScannerConfig: (file) =>
      /^(\.gitguardian\.example\.yml|\.gitguardian\.yaml|\.pre-commit-config\.yaml|\.pre-commit-hooks\.yaml|\.env\.example)$/.test(
        file,
      ),
    isLockfile: (file) => /^(uv\.lock|rust\/Cargo\.lock)$/.test(file),
  },
  {
    name: 'Yelp/detect-secrets',
    isDoc: (file) => /^(docs\/.*\.md|README\.md|CONTRIBUTING\.md)$/.test(file),
    isChangelog: (file) => file === 'CHANGELOG.md',
    isScript: (file) => /^(Makefile|tox\.ini|scripts\/bump-version)$/.test(file),
    isWorkflow: (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file),
    isScannerConfig: (file) =>
      /^(\.secrets\.baseline|\.pre-commit-config\.yaml|\.pre-commit-hooks\.yaml)$/.test(file),
    isLockfile: (file) => /^requirements-dev\.txt$/.test(file),
  },
  {
    name: 'thoughtworks/talisman',
    isDoc: (file) => /^(README\.md|contributing\.md)$/.test(file),
    isChangelog: none,
    isScript: (file) => /^(test-install\.sh|install\.sh|global_install_scripts\/.*\.(sh|bash))$/.test(file),
    isWorkflow: (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file),
    isScannerConfig: (file) =>
      /^(\.talismanrc|\.pre-commit-config\.yaml|\.pre-commit-hooks\.yaml)$/.test(file),
    isLockfile: (file) => file === 'go.sum',
  },
  {
    name: 'americanexpress/earlybird',
    isDoc: (file) => /^(docs\/.*\.md|README\.md)$/.test(file),
    isChangelog: (file) => file === 'CHANGELOG.md',
    isScript: (file) => /^(build\.sh|install\.sh)$/.test(file),
    isWorkflow: (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file),
    isScannerConfig: (file) => /^config\/falsepositives\/.*\.yaml$/.test(file),
    isLockfile: (file) => file === 'go.sum',
  },
];
for (const spec of REPOS) {
  const found = collector(LIMITS);
  collectRepository(repo(spec.name), spec, found, {
    docParts: (_file, text) => markdownParts(text, { shell: SHELL_FENCES, config: CONFIG }),
  });
  found.flush();
}

// ── Scanners' cases: detect-secrets' plugin tests, values generated from secrets-patterns-db ──────────
// One Python pass: evaluates the `pytest.mark.parametrize` lists of detect-secrets' plugin tests (string
// literals, module constants, `'…'.format(…)`, `textwrap.dedent(…)`; a case it cannot evaluate is left
// out), and generates values from secrets-patterns-db's rules (a walk of the parsed pattern, fixed seed).
const PYTHON = String.raw`
import ast, json, random, re, subprocess, sys, textwrap, yaml
try:
    import re._parser as sre_parse, re._constants as sre_c
except ImportError:
    import sre_parse, sre_constants as sre_c
ds, sp = sys.argv[1], sys.argv[2]
git = lambda repo, *a: subprocess.check_output(['git', '--git-dir', repo, *a])
class Unknown(Exception): pass
def ev(node, env):
    if isinstance(node, ast.Constant): return node.value
    if isinstance(node, (ast.Tuple, ast.List)): return [ev(e, env) for e in node.elts]
    if isinstance(node, ast.Name):
        if node.id in env: return env[node.id]
        raise Unknown(node.id)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add): return ev(node.left, env) + ev(node.right, env)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        v = ev(node.value, env)
        lo = ev(node.slice.lower, env) if node.slice.lower else None
        hi = ev(node.slice.upper, env) if node.slice.upper else None
        return v[lo:hi]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub): return -ev(node.operand, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr == 'format':
            base = ev(node.func.value, env)
            return base.format(*[ev(a, env) for a in node.args], **{k.arg: ev(k.value, env) for k in node.keywords})
        if node.func.attr == 'dedent': return textwrap.dedent(ev(node.args[0], env))
    raise Unknown(ast.dump(node)[:40])
out = {'detect_secrets': [], 'patterns': [], 'failed': []}
for f in git(ds, 'ls-tree', '-r', '--name-only', 'HEAD', 'tests/plugins').decode().split('\n'):
    if not f.endswith('_test.py'): continue
    tree = ast.parse(git(ds, 'show', 'HEAD:' + f).decode())
    env = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try: env[node.targets[0].id] = ev(node.value, env)
            except Exception: pass
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'parametrize' and len(node.args) >= 2): continue
        try: names = [n.strip() for n in ev(node.args[0], env).split(',')]
        except Exception: continue
        elts = node.args[1].elts if isinstance(node.args[1], (ast.List, ast.Tuple)) else None
        if elts is None:
            try: cases = ev(node.args[1], env)
            except Exception: continue
        else:
            cases = []
            for e in elts:
                try: cases.append(ev(e, env))
                except Exception: out['failed'].append(f)
        for index, case in enumerate(cases):
            if not isinstance(case, list) or len(case) != len(names): continue
            out['detect_secrets'].append({'file': f, 'line': node.lineno, 'index': index + 1, 'names': names, 'values': case})
rng = random.Random(20261206)
def generate(node):
    s = ''
    for op, av in node:
        if op == sre_c.LITERAL: s += chr(av)
        elif op == sre_c.IN:
            chars = []
            for kind, v in av:
                if kind == sre_c.LITERAL: chars.append(chr(v))
                elif kind == sre_c.RANGE: chars.extend(chr(c) for c in range(v[0], v[1] + 1))
                elif kind == sre_c.CATEGORY and v == sre_c.CATEGORY_DIGIT: chars.extend('0123456789')
                elif kind == sre_c.CATEGORY and v == sre_c.CATEGORY_WORD: chars.extend('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_')
                else: raise ValueError(kind)
            s += rng.choice(chars)
        elif op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT):
            lo, hi, sub = av
            # An open repeat (+, *) as a provider writes it: 16 to 32 more.
            count = rng.randint(lo + 16, lo + 32) if hi == sre_c.MAXREPEAT else rng.randint(lo, hi)
            for _ in range(count): s += generate(sub)
        elif op == sre_c.SUBPATTERN: s += generate(av[-1])
        elif op == sre_c.BRANCH: s += generate(rng.choice(av[1]))
        elif op == sre_c.AT: pass
        else: raise ValueError(op)
    return s
for r in yaml.safe_load(git(sp, 'show', 'HEAD:db/rules-stable.yml'))['patterns']:
    p = r['pattern']
    name, pattern = p['name'], str(p['regex'])
    if p.get('confidence') != 'high': continue
    if not re.search(r'key|token|secret|password|pat\b|webhook|credential', name, re.I): continue
    # A service's name within some characters of the key (trufflehog's form): the key is the group, and
    # the service is named in the shape it is written into.
    context = re.fullmatch(r'\(\?:([a-z0-9]+)\)\.\{0,\d+\}\\b\((.+)\)\\b', pattern)
    service = None
    if context: service, pattern = context.group(1), context.group(2)
    # Otherwise only patterns whose key stands alone: a literal prefix, no context a value would invent.
    elif not re.match(r'(?:[A-Za-z0-9_-]|\\\.){3,}', pattern) or re.search(r'\.\*|\.\{|\.\+|\\s|\(\?i\)|\[\^', pattern): continue
    # A key name alone (docker[_-]?password(=| =|:| :)) has no value to generate.
    if not re.search(r'\{(?:[89]|\d\d)|\]\+|\]\{\d+,', pattern): continue
    try:
        rx = re.compile(pattern)
        parsed = sre_parse.parse(pattern)
    except Exception:
        out['failed'].append(name); continue
    for n in range(3):
        try: value = generate(parsed)
        except Exception:
            out['failed'].append(name); break
        if rx.fullmatch(value): out['patterns'].append({'name': name, 'service': service, 'regex': pattern, 'value': value})
json.dump(out, sys.stdout)
`;

// Changed for this corpus: a word and a short number (`hardcoded3`, `autumn2019`) counts as a word too,
// and each part must be spelt as a word (lower case, capitals, Capitalized or camelCase), not only short
// (`YXNkZmZmZmZm_HARDcoded` is base64 and a word).
const isWordPassword = (secret) =>
  WORDS.test(secret.replace(/\d{1,4}$/, '')) &&
  secret
    .replace(/\d{1,4}$/, '')
    .split(/[-_ :]/)
    .every((part) => /^(?:[a-z]+|[A-Z]+|(?:[A-Z]?[a-z]+)+)$/.test(part));

/**
 * detect-secrets' negative cases left out of the benign texts, read before the detector ran: each holds a
 * value shaped and named like a real credential, which the plugin skips for a reason of its own (a
 * prefix one character off, a missing path before `:_authToken`, a case it leaves to another plugin).
 */
const NOT_BENIGN = [
  // Discord, GitHub, OpenAI, PyPI, SendGrid and Telegram tokens one character or one prefix off, which
  // the plugin rejects for its own format (as the sixth corpus left out SendGrid's).
  /^[MP]Z1yGvKTj|^MTAyOTQ4MTN5OTU5MTDwMEcxNg0\./,
  /^foo_wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx$/,
  /^sk-proj-Xi8tdMjHV6pmbBbwilTeT4BlbkFJ/,
  /^pypi-AgEIcHlwaS5vcmcCJDU3OTM1MjliLWIyYTYtNDEwOC05NzRkLTM0MjNiNmEwNWIzYgACF1sxLFsibWluaW1h$/,
  /^(?:SG|AG)\.ngeVfQFYQlKU0ufo8x5d1A/,
  /^(?:bot110201543|foo):AAH/,
  // JWTs whose header or claims do not decode, with a signature of the real shape.
  /^eyJhbasdGciOi|^eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ\.|^bm90X3ZhbGlkX2pzb25fYXRfYWxs\.|^\{"alg":"HS256"/,
  // Mailchimp keys with a data centre the plugin does not know: 32 hex digits, a key's shape.
  /^(?:3ea4572956e2b381923ed34c31db76aa|aea462953eb192d38c31a433e76257db|9276a43e2951aa46e2b1c33ED38357DB)-/,
  // An npm token (a UUID under `_authToken`) in a line the plugin reads as no .npmrc.
  /_authToken=743b294a-cd03-11ec-9d64-0242ac120002$/,
];

/** Everyday shapes a secret turns up in: a command line an agent runs, or a sentence of its summary. */
const SHAPES = [
  ['command', (s, _n, p) => `kubectl create secret generic ${p}-creds --from-literal=token=${s} -n staging`],
  ['command', (s, n) => `docker run --rm -e ${n}=${s} ghcr.io/acme/worker:1.4.2`],
  ['command', (s, n) => `heroku config:set ${n}=${s} --app acme-staging`],
  ['command', (s, _n, p) => `terraform apply -var="${p}_api_key=${s}" -auto-approve`],
  ['command', (s, n) => `fly secrets set ${n}=${s} -a acme-api`],
  ['command', (s) => `curl -s https://api.acme.dev/v2/sync -H "Authorization: Token ${s}"`],
  ['prose', (s, n) => `Exported ${n}=${s} before re-running the migration; the 401s stopped.`],
  [
    'prose',
    (s, _n, p) => `Checked the vault: the ${p} key in use is ${s}, so the one in the README was stale.`,
  ],
  ['prose', (s, _n, p) => `Left ${s} in config/local.yml for now; move the ${p} token to the vault.`],
  ['prose', (s, n) => `Handoff: the integration tests need ${n} (currently ${s}) set in the shell.`],
  ['prose', (s, _n, p) => `The ${p} webhook only verifies with ${s}; the old one was revoked yesterday.`],
  ['prose', (s, _n, p) => `Used ${s} for the ${p} sandbox while debugging the signature mismatch.`],
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
/** The value a line assigns (`x = "v"`, `x: v`), else its longest run without spaces or quotes. */
function assignedValue(text) {
  const assigned = [...text.matchAll(/[=:]\s*["'`@]*([^\s"'`,;)=:][^\s"'`,;):]{7,})/g)].at(-1)?.[1];
  if (assigned) return assigned;
  return (text.match(/[^\s"'`]{8,}/g) ?? []).sort((a, b) => b.length - a.length)[0];
}
/**
 * Of a URL with credentials, the password; of a URL alone, its last path segment; of an XML element, its
 * content; else the value assigned; else the line's longest run.
 */
function secretOf(line) {
  const url = /[a-z][a-z0-9+.-]*:\/\/[^:/\s@]+:([^@\s/]+)@/i.exec(line);
  if (url) return url[1];
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/\s]+\/\S*\/([^/\s]{8,})$/i.exec(line.trim());
  if (path) return path[1];
  const element = /<([\w:.-]+)[^>]*>([^<\s]{8,})<\/\1>/.exec(line);
  if (element) return element[2];
  const attribute = /\b(?:value|password)="([^"\s]{8,})"/i.exec(line);
  if (attribute) return attribute[1];
  const value = assignedValue(line.trim().replace(/^[=\s]+/, ''));
  // `:_authToken=value` (an .npmrc line): the value is what follows the name.
  const named = /^[\w.-]*=\s*(\S{8,})?$/.exec(value ?? '');
  if (named) return named[1] ?? (line.match(/[^\s"'`=:]{8,}/g) ?? []).at(-1);
  return value;
}

const ds = repo('Yelp/detect-secrets');
const sp = repo('mazen160/secrets-patterns-db');
const found = JSON.parse(
  execFileSync('python3', ['-c', PYTHON, ds.dir, sp.dir], { encoding: 'utf8', maxBuffer: 1 << 28 }),
);
if (found.failed.length)
  process.stderr.write(`cases or patterns Python could not read: ${[...new Set(found.failed)].join(', ')}\n`);
for (const item of found.detect_secrets) {
  const plugin = item.file.replace(/^tests\/plugins\/|_test\.py$/g, '');
  // IP addresses and the entropy tests' templates (`'{secret}'`) are not cases of a credential.
  if (/^(ip_public|base|high_entropy_strings)$/.test(plugin)) continue;
  const [text, label] = item.values;
  if (typeof text !== 'string' || !text.trim()) continue;
  const source = `${ds.source(item.file)} line ${item.line} case ${item.index}`;
  const name = item.names[1];
  let secrets;
  if (typeof label === 'boolean' && /flag|caught|secret/.test(name ?? ''))
    secrets = label ? [secretOf(text)] : [];
  else if (typeof label === 'string' && /secret/.test(name ?? '')) secrets = [label];
  else if (label === null && /secret/.test(name ?? '')) secrets = [];
  else continue;
  // A case of several lines is a username finder's input (cloudant, softlayer), not a secret's.
  if (secrets.length && typeof label === 'boolean' && text.includes('\n')) continue;
  if (text.length > 4000 || earlier.has(text.trim())) continue;
  if (secrets.length === 0) {
    if (!NOT_BENIGN.some((rule) => rule.test(text)))
      scannerBenign.push('scanner-negative', 'code', text, source, 4000);
    continue;
  }
  const cleaned = secrets
    .filter((secret) => typeof secret === 'string')
    .map((secret) => secret.replace(/^[\\"'\s]+|[\\"'\s]+$/g, ''))
    .filter((secret) => secret.length >= 8 && text.includes(secret));
  if (cleaned.length === 0) continue;
  const real = cleaned.filter((secret) => !isPlaceholder(secret));
  if (real.length === 0) {
    scannerBenign.push('scanner-placeholder', 'code', text, source, 4000);
    continue;
  }
  for (const secret of real) {
    if (earlierSecrets.has(secret) || secretsSeen.has(secret)) continue;
    secretsSeen.add(secret);
    const strength = isWordPassword(secret) ? 'word' : 'generated-or-chosen';
    positives.push({
      text,
      secret,
      format: `detect-secrets ${plugin}`,
      kind: 'scanner-example',
      strength,
      source,
    });
    addShaped({
      secret,
      format: `detect-secrets ${plugin}`,
      source,
      provider: plugin.split('_')[0],
      ruleName: plugin,
      strength,
    });
  }
}
// Skyscanner/whispers' test fixtures: config files of many kinds, each split by markers into what its
// rules must leave (compliant: benign) and what they must find (noncompliant: a secret per line that
// assigns one). Credit card numbers are no credential of this detector's; the `excluded` files' compliant
// parts are secrets a config excludes, not benign texts; `paths.yml` finds paths, not secrets; files
// without markers are left out.
const wh = repo('Skyscanner/whispers');
const MARKER =
  /^\s*(?:#|\/\/|<!--|-{3,}|\[|<|"|)\s*(non-?compliant|incompliant|compliant)\s*(?:\]|>|-->|"\s*:\s*\{|:)?\s*$/i;
for (const [file, text] of wh.read(
  wh
    .files()
    .filter((file) => /^tests\/fixtures\//.test(file) && !/creditcards|excluded|paths|\.gitkeep/.test(file)),
)) {
  let section = null;
  for (const [index, line] of text.split('\n').entries()) {
    const marker = MARKER.exec(line);
    if (marker) {
      section = /^compliant$/i.test(marker[1]) ? 'compliant' : 'noncompliant';
      continue;
    }
    if (section === null || !line.trim() || /^\s*<\/(?:non-?|in)?compliant>/i.test(line)) continue;
    const source = `${wh.source(file)} line ${index + 1}`;
    const trimmed = line.trim();
    if (earlier.has(trimmed)) continue;
    if (section === 'compliant') {
      scannerBenign.push('scanner-negative', 'code', trimmed, source);
      continue;
    }
    // Whispers' fixtures mark every value they plant as hardcoded or fake (`hardcoded3`,
    // `YXNkZmZmZmZm_HARDcoded`, `AKIAHI38FAKE1IWUQEEN`): the secret is that run, split at quotes,
    // brackets, `=`, `:`, `&` and `@`; a line without one (structure, a key's name) is no case.
    // The last such run that is no field's name (`01_hardcoded_password:`, `<o1_hardcoded_password>`); of
    // a URL, its last path segment.
    const runs = [
      ...trimmed.matchAll(/[^\s"'`<>,;=:{}()[\]&@]*(?:hardcod|fake)[^\s"'`<>,;=:{}()[\]&@]*/gi),
    ].filter(
      (m) =>
        !/^"?\s*:(?!\/\/)|^>/.test(trimmed.slice(m.index + m[0].length)) &&
        !/<\/?$/.test(trimmed.slice(0, m.index)),
    );
    const run = runs.at(-1)?.[0];
    const secret = run?.startsWith('//') ? run.split('/').at(-1) : run;
    if (!secret || secret.length < 8) continue;
    if (isPlaceholder(secret)) {
      scannerBenign.push('scanner-placeholder', 'code', trimmed, source);
      continue;
    }
    if (earlierSecrets.has(secret)) continue;
    const strength = isWordPassword(secret) ? 'word' : 'generated-or-chosen';
    positives.push({
      text: trimmed,
      secret,
      format: `whispers ${file.replace(/^tests\/fixtures\//, '')}`,
      kind: 'scanner-example',
      strength,
      source,
    });
    if (secretsSeen.has(secret)) continue;
    secretsSeen.add(secret);
    const provider = file.replace(/^tests\/fixtures\/\.?|\..*$/g, '') || 'app';
    addShaped({
      secret,
      format: `whispers ${file.replace(/^tests\/fixtures\//, '')}`,
      source,
      provider,
      ruleName: trimmed,
      strength,
    });
  }
}
for (const item of found.patterns) {
  // A key of under 12 characters (Nexmo's 8) is as much an id as a secret: left out.
  if (item.value.length < 12) continue;
  if (earlierSecrets.has(item.value) || secretsSeen.has(item.value) || isPlaceholder(item.value)) continue;
  secretsSeen.add(item.value);
  addShaped({
    secret: item.value,
    format: `secrets-patterns-db ${item.name}`,
    source: `${sp.source('db/rules-stable.yml')} ${item.name} (generated value)`,
    provider: item.service ?? (item.name.split(/\s+/)[0] || 'service'),
    ruleName: item.name,
    strength: 'generated-or-chosen',
  });
}
scannerBenign.flush();

writeCorpus(
  'redaction-corpus-tooling.json',
  'Seventh redaction corpus (issue 26): docs, commits, workflows, scanner configs, scripts and lock files of renovate, semantic-release, ggshield, detect-secrets, talisman and earlybird; the secrets and negative cases of detect-secrets plugin tests and whispers test fixtures; values generated from secrets-patterns-db high-confidence rules. No source an earlier corpus used; see scripts/make-redaction-corpus-tooling.mjs for the rules, all fixed before the detector ran. Split by the first hex digit of sha256(text): 0-7 tuning, 8-f held out.',
  benign,
  positives,
);

#!/usr/bin/env node
// Writes test/fixtures/redaction-corpus-agents.json, the fifth redaction corpus (issue 26): what coding
// agents write every day, from public repositories that no earlier corpus used, each item naming its
// repository, commit and file (or commit). Run against local snapshots of the repositories (the `fetch`
// of this project's tooling put them in one folder, `<owner>+<name>/repo`
// each; name it as the first argument or in CORPUS_MIRRORS).
// Needs python3 with PyYAML, to read kingfisher's rule files and to run its and gitleaks' patterns.
//
//   Benign (must come out unchanged), from cli/cli, astral-sh/uv and rclone/rclone: commit messages
//   (subject and body lines: the summaries an agent writes), changelog entries, the prose, shell and
//   config lines and whole shell blocks of their Markdown docs, gh's own `$ gh …` help examples and
//   acceptance-test command lines, GitHub workflow lines (`run:` steps as commands), Makefile, Justfile
//   and shell-script lines. Plus the scanner examples below whose every value is a placeholder.
//   Secrets (must be redacted): mongodb/kingfisher's rule examples, and the literal true-positive cases
//   (`tps`) of gitleaks' rule generators (cmd/generate/config/rules/*.go; the everyday corpus took only
//   their `fps` lists, and its secrets were random values). The secret is what the rule's own pattern
//   captures. Each secret is kept as the scanner wrote it (kind `scanner-example`) and, when it is one
//   line, also written into one everyday shape (a command line or a sentence of a summary, SHAPES below,
//   chosen by the sha256 of the secret), kind `command` or `prose`.
//
// Rules fixed before the detector ran on any item:
//   - benign lines of 12 to 400 characters (shell blocks up to 1,500), deduplicated, none that an earlier
//     corpus holds; no benign text is dropped for looking like a secret;
//   - two strata per family, `cue` (a word or shape detectors react to, CUE as in the fourth corpus) and
//     `plain`; at most LIMITS of each per repository and family, chosen by a salted sha256 of the text;
//   - kingfisher rules that find an identifier, not a secret (a category `identifier`, `hash` or
//     `domain`, `visible: false`, or a name that says ID, URL, host, domain, user, account, region or
//     tenant without saying key, secret, token, password or credential) are left out;
//   - a secret that an earlier corpus holds (kingfisher took many of noseyparker's examples), or whose
//     example text it holds, is left out;
//   - an example whose every secret is a placeholder (the fourth corpus's test: few distinct characters,
//     EXAMPLE, xxxx, a run like abcdefgh or 12345678, a leading $, % or #{; and here also letters that,
//     read alone, run in order: a1b2c3d4e5f6, abc123def456) is benign (scanner-placeholder);
//     a secret of letters only or words joined by `_`, `-` or a space is `strength: "word"`, counted apart;
//   - secrets shorter than 8 characters are left out (a port, a PIN, a fragment of a pattern); of a URL,
//     the secret is what follows its host, as in the fourth corpus.
// The split into tuning and held-out parts is by sha256(text): first hex digit 0-7 tuning, 8-f held out.
import { execFileSync } from 'node:child_process';
import {
  CONFIG_FENCES,
  collectRepository,
  envName,
  goStrings,
  isAgentsPlaceholder,
  isGitHubWorkflow,
  markdownParts,
  SHELL_FENCES,
  sha,
  startCorpus,
  unquote,
  WORDS,
  writeCorpus,
} from './redaction-corpus-common.mjs';

// Texts and secrets of the earlier corpora: none is used again.
const { repo, earlier, earlierSecrets, benign, collector } = startCorpus('redaction-corpus-agents.json');

// ── Benign ────────────────────────────────────────────────────────────────────────────────────────────

const LIMITS = {
  'commit-message': { cue: 150, plain: 150 },
  changelog: { cue: 60, plain: 40 },
  'docs-prose': { cue: 120, plain: 60 },
  'docs-shell': { cue: 150, plain: 60 },
  'docs-shell-block': { cue: 30, plain: 10 },
  'docs-config': { cue: 100, plain: 40 },
  'help-example': { cue: 150, plain: 100 },
  'acceptance-command': { cue: 80, plain: 40 },
  'workflow-run': { cue: 60, plain: 30 },
  workflow: { cue: 60, plain: 20 },
  script: { cue: 80, plain: 40 },
};
const REPOS = [
  {
    name: 'cli/cli',
    isDoc: (file) => /^(docs\/.*|README|CONTRIBUTING|\.github\/CONTRIBUTING)\.md$|^docs\/.*\.md$/.test(file),
    isChangelog: () => false,
    isScript: (file) => /^(script\/[^/]+\.sh|Makefile)$/.test(file),
    isWorkflow: isGitHubWorkflow,
  },
  {
    name: 'astral-sh/uv',
    isDoc: (file) => /^(docs\/.*\.md|README\.md|CONTRIBUTING\.md|BENCHMARKS\.md)$/.test(file),
    isChangelog: (file) => /^(CHANGELOG\.md|changelogs\/.*\.md)$/.test(file),
    isScript: (file) => /^(scripts\/.*\.sh|Justfile|Makefile)$/.test(file),
    isWorkflow: isGitHubWorkflow,
  },
  {
    name: 'rclone/rclone',
    isDoc: (file) =>
      /^(docs\/content\/.*\.md|README\.md|CONTRIBUTING\.md|RELEASE\.md)$/.test(file) &&
      !/changelog\.md$/.test(file),
    isChangelog: (file) => /^docs\/content\/changelog\.md$/.test(file),
    isScript: (file) => /^(bin\/.*\.sh|Makefile)$/.test(file),
    isWorkflow: isGitHubWorkflow,
  },
];
for (const spec of REPOS) {
  const found = collector(LIMITS);
  const r = repo(spec.name);
  // Workflows' comments are kept here (the later corpora leave them out).
  const files = collectRepository(r, spec, found, {
    docParts: (_file, text) => markdownParts(text, { shell: SHELL_FENCES, config: CONFIG_FENCES }),
    workflowComments: true,
  });
  if (spec.name === 'cli/cli') {
    // gh's own help examples (`$ gh secret set MYSECRET --body "$ENV_VALUE"`) and acceptance scripts.
    const goFiles = files.filter((file) => /^pkg\/cmd\/.*\.go$/.test(file) && !/_test\.go$/.test(file));
    for (const [file, text] of r.read(goFiles))
      for (const line of text.split('\n')) {
        const example = /^\s*\$ (gh .*)$/.exec(line);
        if (example) found.push('help-example', 'command', example[1], r.source(file));
      }
    const scripts = files.filter((file) => /^acceptance\/testdata\/.*\.txtar$/.test(file));
    for (const [file, text] of r.read(scripts))
      for (const line of text.split('\n')) {
        const command = /^\s*!?\s*exec\s+(.*)$/.exec(line);
        if (command) found.push('acceptance-command', 'command', command[1], r.source(file));
      }
  }
  found.flush();
}

// ── Scanners' examples: secrets, and placeholders ─────────────────────────────────────────────────────
// One Python pass: reads kingfisher's rule YAML and gitleaks' generated config, runs each pattern on its
// examples (Rust and Go regex syntax, which Python's `re` reads after a few rewrites) and prints matches.
const PYTHON = String.raw`
import json, re, subprocess, sys, tomllib, yaml
kf, gl = sys.argv[1], sys.argv[2]
git = lambda repo, *a: subprocess.check_output(['git', '--git-dir', repo, *a])
POSIX = {'alnum': 'a-zA-Z0-9', 'alpha': 'a-zA-Z', 'digit': '0-9', 'upper': 'A-Z', 'lower': 'a-z',
         'space': r'\s', 'xdigit': '0-9a-fA-F', 'punct': r'!-/:-@\[-\x60{-~', 'word': r'\w'}
def compile_(pattern):
    flags = 0
    # A flag group in the middle of a pattern applies from there on in Rust's and Go's regex; Python takes
    # them only at the start, so here they apply to the whole pattern (used only to find the secret).
    def strip(m):
        nonlocal flags
        for c in m.group(1): flags |= {'i': re.I, 's': re.S, 'x': re.X, 'm': re.M, 'u': 0}[c]
        return ''
    pattern = re.sub(r'\(\?([isxmu]+)\)', strip, pattern)
    pattern = re.sub(r'\[:(\w+):\]', lambda m: POSIX[m.group(1)], pattern)
    pattern = pattern.replace(r'\z', r'\Z').replace('(?P<', '(?P<')
    return re.compile(pattern, flags)
out = {'kingfisher': [], 'gitleaks': [], 'failed': []}
files = [f for f in git(kf, 'ls-tree', '-r', '--name-only', 'HEAD').decode().split('\n')
         if re.match(r'data/rules/.*\.yml$', f)]
for f in files:
    for r in yaml.safe_load(git(kf, 'show', 'HEAD:' + f))['rules']:
        try: rx = compile_(r['pattern'])
        except Exception as e:
            out['failed'].append(r['id']); continue
        out['kingfisher'].append({'file': f, 'id': r['id'], 'name': r.get('name', ''),
            'categories': r.get('categories') or [], 'visible': r.get('visible', True),
            'examples': [{'text': e, 'matches': [list(m.groups()) or [m.group(0)] for m in rx.finditer(e)]}
                         for e in r.get('examples') or []]})
config = tomllib.loads(git(gl, 'show', 'HEAD:config/gitleaks.toml').decode())
cases = json.loads(sys.stdin.read())
rules = {r['id']: r for r in config['rules'] if 'regex' in r}
for case in cases:
    r = rules.get(case['id'])
    if r is None: continue
    try: rx = compile_(r['regex'])
    except Exception:
        out['failed'].append(case['id']); continue
    matches = []
    for m in rx.finditer(case['text']):
        group = r.get('secretGroup', 0)
        if group: matches.append(m.group(group) or '')
        else: matches.append(next((g for g in m.groups() if g), m.group(0)))
    out['gitleaks'].append({**case, 'matches': matches})
json.dump(out, sys.stdout)
`;

/** Splits Go code at top-level occurrences of `separator` (outside strings, brackets and comments). */
function splitTop(text, separator) {
  const parts = [];
  let depth = 0;
  let quote = null;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      current += c;
      if (c === '\\' && quote === '"') current += text[++i] ?? '';
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      current += '\n';
      continue;
    }
    if (c === '"' || c === '`') quote = c;
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (c === separator && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += c;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}
function evaluate(expr, vars) {
  const terms = splitTop(expr.trim(), '+');
  if (terms.length > 1) {
    const values = terms.map((term) => evaluate(term, vars));
    return values.some((value) => value === null) ? null : values.join('');
  }
  const term = terms[0] ?? '';
  if (/^"|^`/.test(term)) return unquote(term);
  if (/^\w+$/.test(term)) return vars.get(term) ?? null;
  return null;
}
/** The literal true-positive cases of gitleaks' rule generators, with the rule each belongs to. */
function gitleaksCases(r) {
  const cases = [];
  const files = r.files().filter((file) => /^cmd\/generate\/config\/rules\/[^/]+\.go$/.test(file));
  for (const [file, text] of r.read(files)) {
    if (/_test\.go$/.test(file)) continue;
    for (const body of text.split(/\nfunc /).slice(1)) {
      const id = /RuleID:\s*"([^"]+)"/.exec(body)?.[1];
      if (!id) continue;
      const vars = goStrings(body);
      const blocks = body.matchAll(
        /\btps\s*(?::=|=)\s*(?:append\(\s*tps\s*,|\[\]string\s*\{)([\s\S]*?)\n\s*(?:\)|\}\s*(?:\.\.\.\s*\))?)\s*\n/g,
      );
      for (const [, block] of blocks)
        for (const element of splitTop(block, ',')) {
          const value = evaluate(element, vars);
          if (value) cases.push({ id, text: value, file });
        }
    }
  }
  return cases;
}

const IDENTIFIER_NAME =
  /\b(?:IDs?|Id|Identifier|URL|Url|Host(?:name)?|Domain|Endpoint|User(?:name)?|Email|Account|Region|Tenant|Subdomain|Org(?:anization)?)\b/;
const SECRET_NAME = /Key|Secret|Token|Password|Credential|PAT\b|Webhook|Private/i;

/** Everyday shapes a secret turns up in: a command line an agent runs, or a sentence of its summary. */
const SHAPES = [
  ['command', (s, n) => `export ${n}=${s}`],
  ['command', (s) => `curl -sS -H "Authorization: Bearer ${s}" https://api.acme-corp.dev/v2/projects`],
  ['command', (s, n) => `${n}='${s}' ./scripts/deploy.sh --env staging`],
  ['command', (s, _n, p) => `kubectl create secret generic ${p}-creds --from-literal=api-key=${s}`],
  ['command', (s, n) => `docker run --rm -e ${n}=${s} ghcr.io/acme/worker:1.4.2`],
  ['command', (s, _n, p) => `echo '${s}' > ~/.config/${p}/credentials`],
  [
    'prose',
    (s) => `Found ${s} committed in config/settings.py; revoked it and moved the value to the vault.`,
  ],
  ['prose', (s, _n, p) => `The ${p} key ${s} showed up in the CI log, so I rotated it and re-ran the job.`],
  ['prose', (s, n) => `Summary: the deploy failed because ${n} was still set to ${s}, which had expired.`],
  ['prose', (s, _n, p) => `Left ${s} in .env.local for the ${p} integration tests; do not commit that file.`],
];

const positives = [];
const secretsSeen = new Set();
const placeholders = collector({ 'scanner-placeholder': { cue: 1000, plain: 1000 } });
function addExample({ text, secrets, format, source, provider, ruleName }) {
  text = text.replace(/\s+$/, '');
  const cleaned = secrets
    .filter((secret) => typeof secret === 'string')
    .map((secret) =>
      secret
        // Quotes and escapes a pattern took in are not part of the value; of a URL, the secret is what
        // follows its host (and its first path segment when that is a word), as in the fourth corpus.
        .replace(/^[\\"'\s]+|[\\"'\s]+$/g, '')
        .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+\/(?:[a-z]+\/)?/i, ''),
    )
    .filter((secret) => secret.length >= 8 && text.includes(secret));
  if (cleaned.length === 0 || earlier.has(text.trim())) return;
  const real = cleaned.filter((secret) => !isAgentsPlaceholder(secret));
  if (real.length === 0) {
    placeholders.push('scanner-placeholder', 'code', text, source, 4000);
    return;
  }
  for (const secret of real) {
    if (earlierSecrets.has(secret) || secretsSeen.has(secret)) continue;
    secretsSeen.add(secret);
    const strength = WORDS.test(secret) ? 'word' : 'generated-or-chosen';
    if (text.length <= 4000)
      positives.push({ text, secret, format, kind: 'scanner-example', strength, source });
    // Shapes take one-line values only (not a key block, a JSON-escaped one or a URL).
    if (/[\s\\]|:\/\//.test(secret)) continue;
    const [kind, shape] = SHAPES[Number.parseInt(sha(`shape\0${secret}`).slice(0, 8), 16) % SHAPES.length];
    const name = envName(provider, ruleName);
    const shaped = shape(secret, name, provider.toLowerCase());
    if (!earlier.has(shaped)) positives.push({ text: shaped, secret, format, kind, strength, source });
  }
}

{
  const kf = repo('mongodb/kingfisher');
  const gl = repo('gitleaks/gitleaks');
  const cases = gitleaksCases(gl);
  const found = JSON.parse(
    execFileSync('python3', ['-c', PYTHON, kf.dir, gl.dir], {
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      input: JSON.stringify(cases),
    }),
  );
  if (found.failed.length)
    process.stderr.write(`patterns Python could not read: ${found.failed.join(', ')}\n`);
  for (const rule of found.kingfisher) {
    const isIdentifier =
      rule.categories.some((c) => ['identifier', 'hash', 'hashed', 'domain'].includes(c)) ||
      rule.visible === false ||
      (IDENTIFIER_NAME.test(rule.name) && !SECRET_NAME.test(rule.name));
    if (isIdentifier) continue;
    for (const [index, example] of rule.examples.entries())
      addExample({
        text: example.text,
        secrets: example.matches.map((groups) => groups.filter(Boolean).at(-1)),
        format: `kingfisher ${rule.id}`,
        source: `${kf.source(rule.file)} ${rule.id} example ${index + 1}`,
        provider: rule.id.split('.')[1] ?? 'service',
        ruleName: rule.name,
      });
  }
  const perRule = new Map();
  for (const item of found.gitleaks) {
    const index = (perRule.get(item.id) ?? 0) + 1;
    perRule.set(item.id, index);
    addExample({
      text: item.text,
      secrets: item.matches,
      format: `gitleaks ${item.id}`,
      source: `${gl.source(item.file)} ${item.id} tps ${index}`,
      provider: item.id.split('-')[0],
      ruleName: item.id,
    });
  }
}
placeholders.flush();

writeCorpus(
  'redaction-corpus-agents.json',
  'Fifth redaction corpus (issue 26): what coding agents write every day, from public repositories no earlier corpus used; see scripts/make-redaction-corpus-agents.mjs for the sources and the rules, all fixed before the detector ran. Split by the first hex digit of sha256(text): 0-7 tuning, 8-f held out.',
  benign,
  positives,
);

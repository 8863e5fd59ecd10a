#!/usr/bin/env node
// Writes test/fixtures/redaction-corpus-docs.json, the fourth redaction corpus (issue 26): texts and
// secrets from public repositories that no earlier corpus used, each item naming its repository, commit
// and file. Run against local snapshots of the repositories (the `fetch` of this project's tooling put them
// in one folder, `<owner>+<name>/repo`
// each; name it as the first argument or in CORPUS_MIRRORS). Needs python3 with PyYAML, to read
// noseyparker's rule files and to run its patterns (Rust regex syntax, which Python's `re` reads).
//
//   Benign (must come out unchanged): what an agent copies from documentation and writes every day.
//   The English command examples of tldr-pages/tldr (with their `{{placeholder}}` syntax); the shell,
//   config and prose lines of the docs of helm/helm-www, goreleaser/goreleaser, fluxcd/website,
//   argoproj/argo-cd and cert-manager/website (current docs only, no translations or old versions),
//   whole shell blocks of those docs, and every line of their GitHub workflows; awslabs/git-secrets'
//   README. Plus praetorian-inc/noseyparker's negative examples that are not credentials (see
//   NOT_BENIGN below for the ones that are, and why they are left out).
//   Secrets (must be redacted): noseyparker's rule examples, for every rule whose categories include
//   `secret` (not `hashed`: a password hash is not a credential one can use). The secret is the value
//   the rule's own pattern captures (its last group, or the one SECRET_GROUP names).
//
// Not used: detect-secrets' plugin tests. Their cases are labelled by format, not by whether a value is a
// credential: most positives are placeholders (`AKIAZZZZZZZZZZZZZZZZ`, `AP6xxxxxxxxxx`, `abcd1234` repeated)
// and several negatives are real token shapes rejected for their format (`bot110201543:AAHdq…`).
//
// Rules fixed before the detector ran on any item:
//   - benign lines of 12 to 400 characters (shell blocks up to 1,500), deduplicated, none that an earlier
//     corpus holds; no benign text is dropped for looking like a secret;
//   - two strata per family: `cue` lines, that hold a word or shape a detector reacts to (CUE below), and
//     `plain` lines; at most a fixed number of each per repository and family (LIMITS), chosen by a salted
//     sha256 of the text, so the choice does not follow the order of the files;
//   - a noseyparker example whose every captured secret is a placeholder or reference (PLACEHOLDER: few
//     distinct characters, EXAMPLE, xxxx, a run like abcdefgh or 12345678, a leading $, % or #{) is benign
//     (family scanner-placeholder); a secret made of letters only, or words joined by `_`, `-` or a space
//     (`whiteduke`, `open_sesame`, `SOME_PASSWORD`) is marked `strength: "word"`: a plain-word password,
//     which the detector keeps on purpose (docs/security.md), counted apart;
//   - for a secret that is a URL, the secret is what follows its host and, when that is a word, the
//     path's first segment (`services/`, `webhook/`: the webhook's own part). The first segment was added
//     after the first run, in both parts, when a Slack webhook counted as leaked for keeping `services`.
// The split into tuning and held-out parts is by sha256(text): first hex digit 0-7 tuning, 8-f held out.
import { execFileSync } from 'node:child_process';
import {
  benignCollector,
  CONFIG_FENCES,
  earlierItems,
  isDocsPlaceholder,
  markdownParts,
  mirrorsFolder,
  openRepo,
  WORDS,
  writeCorpus,
} from './redaction-corpus-common.mjs';

const mirrors = mirrorsFolder();
const repo = (name) => openRepo(mirrors, name);

// Texts of the earlier corpora: none is used again.
const earlier = new Set(
  earlierItems([
    'redaction-corpus.json',
    'redaction-corpus-everyday.json',
    'redaction-corpus-public.json',
  ]).map((item) => item.text),
);

// ── Benign ────────────────────────────────────────────────────────────────────────────────────────────
const benign = [];
const seen = new Set();
const collector = (limits) =>
  benignCollector(limits, { benign, kept: seen, isEarlier: (text) => earlier.has(text) });

const SHELL = new Set([
  'sh',
  'bash',
  'shell',
  'console',
  'zsh',
  'cli',
  'terminal',
  'shell-session',
  'powershell',
]);
const CONFIG = new Set([...CONFIG_FENCES, 'terraform']);

const DOCS_LIMITS = {
  'docs-shell': { cue: 160, plain: 60 },
  'docs-shell-block': { cue: 50, plain: 10 },
  'docs-config': { cue: 160, plain: 60 },
  'docs-prose': { cue: 110, plain: 50 },
  workflow: { cue: 100, plain: 20 },
};
const DOCS = [
  ['helm/helm-www', (file) => /^(docs|blog)\/.*\.mdx?$/.test(file)],
  ['goreleaser/goreleaser', (file) => /^www\/content\/.*\.mdx?$/.test(file)],
  ['fluxcd/website', (file) => /^content\/en\/.*\.mdx?$/.test(file)],
  ['argoproj/argo-cd', (file) => /^docs\/.*\.mdx?$/.test(file)],
  ['cert-manager/website', (file) => /^content\/docs\/.*\.mdx?$/.test(file)],
];
for (const [name, isDoc] of DOCS) {
  const r = repo(name);
  const files = r.files();
  const found = collector(DOCS_LIMITS);
  const docs = files.filter(isDoc);
  for (const [file, text] of r.read(docs)) {
    const parts = markdownParts(text, { shell: SHELL, config: CONFIG, fence: /^\s*(```+|~~~+)\s*([\w-]*)/ });
    const source = r.source(file);
    for (const line of parts.shellLines) found.push('docs-shell', 'command', line, source);
    for (const block of parts.shellBlocks) found.push('docs-shell-block', 'command', block, source, 1500);
    for (const line of parts.configLines) found.push('docs-config', 'config', line, source);
    for (const line of parts.prose) found.push('docs-prose', 'prose', line, source);
  }
  const workflows = files.filter((file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file));
  for (const [file, text] of r.read(workflows))
    for (const line of text.split('\n')) found.push('workflow', 'config', line.trim(), r.source(file));
  found.flush();
}
{
  const r = repo('tldr-pages/tldr');
  const found = collector({
    'tldr-command': { cue: 700, plain: 200 },
    'tldr-prose': { cue: 150, plain: 50 },
  });
  const pages = r.files().filter((file) => /^pages\/[^/]+\/[^/]+\.md$/.test(file));
  for (const [file, text] of r.read(pages))
    for (const line of text.split('\n')) {
      const command = /^`(.*)`$/.exec(line);
      if (command) found.push('tldr-command', 'command', command[1], r.source(file));
      else if (/^[->] /.test(line)) found.push('tldr-prose', 'prose', line.slice(2), r.source(file));
    }
  found.flush();
}
{
  const r = repo('awslabs/git-secrets');
  const found = collector({ 'docs-shell': { cue: 40, plain: 20 }, 'docs-prose': { cue: 40, plain: 20 } });
  for (const line of r.read(['README.rst']).get('README.rst').split('\n')) {
    if (/^ {4}\S/.test(line)) found.push('docs-shell', 'command', line.trim(), r.source('README.rst'));
    else if (line.trim() && !/^[=~^-]+$/.test(line.trim()))
      found.push('docs-prose', 'prose', line.trim(), r.source('README.rst'));
  }
  found.flush();
}

// ── noseyparker's rules: examples (secrets) and negative examples ─────────────────────────────────────
const PYTHON = String.raw`
import json, re, subprocess, sys, yaml
repo = sys.argv[1]
git = lambda *a: subprocess.check_output(['git', '-C', repo, *a])
files = [f for f in git('ls-tree', '-r', '--name-only', 'HEAD').decode().split('\n')
         if re.match(r'crates/noseyparker/data/default/builtin/rules/.*\.yml$', f)]
def compile_(pattern):
    flags = 0
    # A flag group in the middle of a pattern ((?s), (?i)) applies from there on in Rust's regex; Python
    # takes them only at the start, so here they apply to the whole pattern (used only to find the secret).
    def strip(m):
        nonlocal flags
        for c in m.group(1): flags |= {'i': re.I, 's': re.S, 'x': re.X, 'm': re.M}[c]
        return ''
    return re.compile(re.sub(r'\(\?([isxm]+)\)', strip, pattern), flags)
rules = []
for f in files:
    for r in yaml.safe_load(git('show', 'HEAD:' + f))['rules']:
        rx = compile_(r['pattern'])
        rules.append({'file': f, 'id': r['id'], 'categories': r.get('categories') or [],
            'examples': [{'text': e, 'matches': [list(m.groups()) for m in rx.finditer(e)]}
                         for e in r.get('examples') or []],
            'negative_examples': r.get('negative_examples') or []})
json.dump(rules, sys.stdout)
`;

/** Which captured group is the secret, where it is not the last one. */
const SECRET_GROUP = {
  // <add key="…" value="…"/>: the value, when the key names a secret (not a user or an address).
  'np.generic.9': (groups) => (/pass|secret|token/i.test(groups[0] ?? '') ? groups[1] : null),
  // A URI's password (user, password, host).
  'np.mongodb.1': (groups) => groups[1] ?? null,
  'np.postgres.1': (groups) => groups[1] ?? null,
  // A connection string's password.
  'np.generic.10': (groups) => /(?:^|;)\s*Password=([^;]+)/i.exec(groups[1] ?? '')?.[1] ?? null,
};

/**
 * Negative examples that are credentials all the same: noseyparker lists them as not matching one rule
 * (the format of another provider or version, a token of another rule's kind), not as harmless. Matched
 * by a piece of their text; decided by reading them, before the detector ran.
 */
const NOT_BENIGN = [
  'AUTH0_CLIENT_SECRET="wsxY', // an Auth0 client secret, without the domain the rule wants first
  'AWS_SECRET_ACCESS_KEY=ded7db27', // a secret named as one, two characters too long for AWS's format
  'zpczok4kqgnw5prpfy3ehiylbqvgbjfkdiqkejsxqamy7qbkep7q', // an Azure DevOps PAT of the older format
  '6RtqHqPc66Y6DYbkydbrrFJTYnRoA7r40ts7LWS2SkINSFsRABxhJQQJ99BFACAAAAALGcqjAAASAZDO3eq', // a PAT, one short
  'KTJlDq2AGGGlqG8riKdT7p980AW8RlU5', // Dependency-Track keys without their prefix: bare random values
  'ABCDDq2AGxGlqG 4ribBT7p98AOM9TlU8',
  'FHxhQGh77_JAHHIYpZ818UQ0aYjXIdMIxxgeR',
  'fbconnectkey', // a Facebook app secret in serialized PHP
  "client_credential='5pX8Q~", // an Azure AD client secret
  "secret_access_key = 'abcdefg12346+FJQCK'", // a secret named as one
  'Ldap password', // a password in a table
  "password = 'open_sesame'", // credentials, however well known
  'password = "123"',
  'password = super$ecret',
  "password = 'super$ecret'",
  '"password": "$super$ecret"',
  'new Buffer("feast")',
  'Password=#gets0m3',
  'ClearTextPassword',
  'Prestigitariu$',
  'clientSecret: \\\\', // Gitalk client secrets
  '"clientSecret": "d151c7bc',
  'apikey: hvs.', // Vault tokens of another length or version
  'apikey: hvb.',
  'apikey: hvr.',
  'b.AAAAAQJgxDgqsGNorpoOR8hPZ5SU',
  'VAULT_CLIENT_TOKEN=',
  'AQAAUPJ-iQc.', // Kagi-shaped keys
  'BwCASYSBiQc.',
  'CQCAbaKBiQc.',
  'outlook.office.com/webhook/', // a Teams webhook URL
  'D1fficultP%40ssw0rd@%2Ftmp', // MongoDB's documented password, in a socket URL
  'license_key: 033f2f2072ca3f2cb2ec39019fa9e49cd640NRAL', // a New Relic license key
  'NPM_TOKEN="007e65c7', // an npm token of the older (UUID) format
  'server->password = "busybox@"', // a default password
  'xoxp-', // Slack tokens, listed under another Slack rule
  'xoxb-',
  'TWITCH_STREAM_KEY', // Twitch stream keys
  'live_126031192_',
  "OAuth('MjuHWoGbzYmJv3ZuHaBvSENfyevu00NQuBc40VM'", // Twitter OAuth keys
];

const positives = [];
const secretsSeen = new Set();
{
  const r = repo('praetorian-inc/noseyparker');
  const rules = JSON.parse(
    execFileSync('python3', ['-c', PYTHON, r.dir], { encoding: 'utf8', maxBuffer: 1 << 28 }),
  );
  const found = collector({
    'scanner-negative': { cue: 1000, plain: 1000 },
    'scanner-placeholder': { cue: 1000, plain: 1000 },
  });
  for (const rule of rules) {
    const source = (what, index) => `${r.source(rule.file)} ${rule.id} ${what} ${index + 1}`;
    for (const [index, text] of rule.negative_examples.entries()) {
      if (NOT_BENIGN.some((piece) => text.includes(piece))) continue;
      found.push('scanner-negative', 'code', text, source('negative example', index), 4000);
    }
    if (!rule.categories.includes('secret') || rule.categories.includes('hashed')) continue;
    for (const [index, example] of rule.examples.entries()) {
      const secrets = example.matches
        .map((groups) => (SECRET_GROUP[rule.id] ?? ((g) => g.at(-1)))(groups))
        .filter((secret) => typeof secret === 'string' && secret.length > 0)
        .map((secret) =>
          secret
            // Quotes and escapes a pattern took in are not part of the value.
            .replace(/^[\\"'\s]+|[\\"'\s]+$/g, '')
            .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+\/(?:[a-z]+\/)?/i, ''),
        )
        .filter((secret) => secret.length > 0);
      if (secrets.length === 0) continue;
      const real = secrets.filter((secret) => !isDocsPlaceholder(secret));
      if (real.length === 0) {
        found.push('scanner-placeholder', 'code', example.text, source('example', index), 4000);
        continue;
      }
      for (const secret of real) {
        const key = `${secret}\0${example.text}`;
        if (secretsSeen.has(key) || !example.text.includes(secret) || earlier.has(example.text.trim()))
          continue;
        secretsSeen.add(key);
        positives.push({
          text: example.text.replace(/\s+$/, ''),
          secret,
          format: `noseyparker ${rule.id}`,
          strength: WORDS.test(secret) ? 'word' : 'generated-or-chosen',
          source: source('example', index),
        });
      }
    }
  }
  found.flush();
}

writeCorpus(
  'redaction-corpus-docs.json',
  'Fourth redaction corpus (issue 26), from public repositories no earlier corpus used; see scripts/make-redaction-corpus-docs.mjs for the sources and the rules, all fixed before the detector ran. Split by the first hex digit of sha256(text): 0-7 tuning, 8-f held out.',
  benign,
  positives,
);

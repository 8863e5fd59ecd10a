// What the scripts that build the redaction corpora share: where the repositories' snapshots are,
// reading them, the earlier corpora (none of whose texts is used again), the capped choice of items, the
// everyday texts of a repository (commit messages, docs, workflows, scripts), Go string literals (the
// scanners' tests are Go), the seeded generator of values, and writing the corpus split into its tuning
// and held-out parts. Each corpus's own sources, families, limits and rules stay in its script.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test/fixtures');

export const sha = (text) => createHash('sha256').update(text).digest('hex');

/** The file a corpus is written to, or read from. */
export const fixturePath = (name) => path.join(fixtures, name);

/**
 * The folder of the repositories' snapshots (the `fetch` of this project's tooling puts them there as
 * `<owner>+<name>/repo`): the first argument, or CORPUS_MIRRORS.
 */
export function mirrorsFolder() {
  const mirrors = process.argv[2] ?? process.env.CORPUS_MIRRORS;
  if (!mirrors)
    throw new Error(
      "name the folder of the repositories' snapshots: node <script> <folder> (or CORPUS_MIRRORS)",
    );
  return mirrors;
}

/** A repository's snapshot, read at its HEAD. */
export function openRepo(mirrors, name) {
  const dir = path.join(mirrors, name.replace('/', '+'), 'repo');
  const git = (args, input) =>
    execFileSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 1 << 30, input });
  const commit = git(['rev-parse', 'HEAD']).trim();
  return {
    name,
    dir,
    commit,
    git,
    files: () => git(['ls-tree', '-r', '--name-only', 'HEAD']).split('\n').filter(Boolean),
    show: (file) => git(['show', `HEAD:${file}`]),
    /** The contents of many files at once (one `git cat-file --batch`, not one process per file). */
    read: (files) => {
      if (files.length === 0) return new Map();
      const raw = execFileSync('git', ['--git-dir', dir, 'cat-file', '--batch'], {
        input: files.map((file) => `HEAD:${file}`).join('\n'),
        maxBuffer: 1 << 30,
      });
      const contents = new Map();
      let at = 0;
      for (const file of files) {
        const headerEnd = raw.indexOf(10, at);
        const header = raw.subarray(at, headerEnd).toString('utf8');
        const size = Number(header.split(' ')[2]);
        contents.set(file, raw.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'));
        at = headerEnd + 1 + size + 1;
      }
      return contents;
    },
    source: (file) => `${name}@${commit.slice(0, 12)}:${file}`,
  };
}

/** The corpora's files, in the order they were made: each keeps out every text of those before it. */
export const CORPORA = [
  'redaction-corpus.json',
  'redaction-corpus-everyday.json',
  'redaction-corpus-public.json',
  'redaction-corpus-docs.json',
  'redaction-corpus-agents.json',
  'redaction-corpus-scanners.json',
  'redaction-corpus-tooling.json',
  'redaction-corpus-transcripts.json',
];

/**
 * What the corpus `name` (one of CORPORA) starts with when it is built from repositories: its
 * repositories (`repo(name)`, from the folder mirrorsFolder names), the texts and secrets of the corpora
 * made before it (none is used again), the benign items kept so far, and `collector(limits)`, a
 * benignCollector that adds to them.
 */
export function startCorpus(name) {
  if (!CORPORA.includes(name)) throw new Error(`not a corpus of CORPORA: ${name}`);
  const mirrors = mirrorsFolder();
  const earlierCorpora = earlierItems(CORPORA.slice(0, CORPORA.indexOf(name)));
  const earlier = new Set(earlierCorpora.map((item) => item.text.trim()));
  const earlierSecrets = new Set(earlierCorpora.flatMap((item) => (item.secret ? [item.secret] : [])));
  const benign = [];
  const kept = new Set();
  return {
    repo: (name) => openRepo(mirrors, name),
    earlier,
    earlierSecrets,
    benign,
    collector: (limits) =>
      benignCollector(limits, { benign, kept, isEarlier: (text) => earlier.has(text.trim()) }),
  };
}

/** Every item (benign and secret) of the earlier corpora named. */
export function earlierItems(names) {
  return names.flatMap((name) => {
    const corpus = JSON.parse(readFileSync(fixturePath(name), 'utf8'));
    return [...(corpus.benign ?? []), ...(corpus.positives ?? [])];
  });
}

/**
 * At most `limit` items, chosen by a salted hash of the text (so the choice is independent of the split
 * and does not follow the order of the files).
 */
export function capped(items, limit) {
  const rank = (item) => sha(`choose\0${item.text}`);
  return [...items].sort((a, b) => rank(a).localeCompare(rank(b))).slice(0, limit);
}

/** Go string literals assigned to names in a file: "...", `...`. */
export function goStrings(source) {
  const vars = new Map();
  const literal = String.raw`"(?:[^"\\\n]|\\.)*"|\x60[^\x60]*\x60`;
  for (const match of source.matchAll(new RegExp(String.raw`(\w+)\s*(?::=|=)\s*(${literal})`, 'g')))
    vars.set(match[1], unquote(match[2]));
  return vars;
}

/** The value of one Go string literal; null when it is not one JSON can read. */
export function unquote(token) {
  if (token.startsWith('`')) return token.slice(1, -1);
  try {
    return JSON.parse(token.replace(/\\'/g, "'").replace(/\\x([0-9a-fA-F]{2})/g, '\\u00$1'));
  } catch {
    return null;
  }
}

/**
 * Writes the corpus (items in the order of their hash, so a rebuild is byte for byte the same) and says
 * how many items each part holds: the held-out part is the texts whose sha256 starts with 8-f.
 */
export function writeCorpus(name, note, benign, positives) {
  const out = fixturePath(name);
  const heldOut = (text) => sha(text).charAt(0) >= '8';
  const corpus = {
    note,
    benign: benign.sort((a, b) => sha(a.text).localeCompare(sha(b.text))),
    positives: positives.sort((a, b) => sha(a.text + a.secret).localeCompare(sha(b.text + b.secret))),
  };
  writeFileSync(out, `${JSON.stringify(corpus, null, 1)}\n`);
  const count = (items) =>
    `${items.length} (${items.filter((item) => !heldOut(item.text)).length} tuning, ${items.filter((item) => heldOut(item.text)).length} held out)`;
  process.stderr.write(`benign ${count(benign)}, positives ${count(positives)} -> ${out}\n`);
}

/** A word or shape that secret detectors react to: the benign lines that test a detector's precision. */
export const CUE =
  /pass|pwd|secret|token|key|auth|cred|bearer|cookie|session|signature|salt|dsn|webhook|digest|sha(?:1|256|384|512)|\$\{\{|\{\{|[A-Za-z0-9+/_=-]{24,}/i;

/**
 * Collects one repository's benign candidates by family and stratum (`cue` lines, holding a CUE, or
 * `plain`), then adds at most `limits[family][stratum]` of each to `benign` (capped): none already kept
 * (`kept`), none shorter than 12 or longer than `maxLength` characters, none an earlier corpus holds.
 */
export function benignCollector(limits, { benign, kept, isEarlier }) {
  const found = new Map();
  return {
    push(family, kind, text, source, maxLength = 400) {
      const trimmed = text.replace(/\s+$/, '');
      if (trimmed.trim().length < 12 || trimmed.length > maxLength || isEarlier(trimmed)) return;
      const stratum = CUE.test(trimmed) ? 'cue' : 'plain';
      const key = `${family}\0${stratum}`;
      if (!found.has(key)) found.set(key, new Map());
      const items = found.get(key);
      if (!items.has(trimmed)) items.set(trimmed, { text: trimmed, source, kind, family, stratum });
    },
    flush() {
      for (const [key, items] of found) {
        const [family, stratum] = key.split('\0');
        const limit = limits[family]?.[stratum] ?? 0;
        for (const item of capped(
          [...items.values()].filter((i) => !kept.has(i.text)),
          limit,
        )) {
          kept.add(item.text);
          benign.push(item);
        }
      }
    },
  };
}

/** A fenced block's opening line and its language: ```bash, ~~~ yaml, ```{.shell}. */
const FENCE = /^\s*(```+|~~~+)\s*\{?\.?([\w-]*)/;

/**
 * Lines of a Markdown file by where they stand: shell blocks (and their lines, prompts taken off), config
 * lines, prose; front matter left out. `shell` and `config` are the fences' languages of each.
 */
export function markdownParts(text, { shell, config, fence: fencePattern = FENCE }) {
  const parts = { shellLines: [], shellBlocks: [], configLines: [], prose: [] };
  let fence = null;
  let block = [];
  let inFrontMatter = text.startsWith('---\n');
  const lines = text.split('\n');
  for (let i = inFrontMatter ? 1 : 0; i < lines.length; i++) {
    const line = lines[i];
    if (inFrontMatter) {
      if (line.trim() === '---') inFrontMatter = false;
      continue;
    }
    const opening = fencePattern.exec(line);
    if (opening) {
      if (fence === null) {
        fence = opening[2].toLowerCase();
        block = [];
      } else {
        if (shell.has(fence) && block.length > 1) parts.shellBlocks.push(block.join('\n'));
        fence = null;
      }
      continue;
    }
    if (fence !== null) {
      block.push(line);
      if (shell.has(fence)) parts.shellLines.push(line.replace(/^\s*(?:\$|>|PS>)\s+/, '').trim());
      else if (config.has(fence)) parts.configLines.push(line.trim());
      continue;
    }
    if (line.trim() && !/^\s*(?:<|\{\{[<%]|import |export )/.test(line)) parts.prose.push(line.trim());
  }
  return parts;
}

/** The fences' languages whose blocks are shell (markdownParts' `shell`). */
export const SHELL_FENCES = new Set([
  'sh',
  'bash',
  'shell',
  'console',
  'zsh',
  'terminal',
  'shell-session',
  'powershell',
]);

/** The fences' languages whose lines are config (markdownParts' `config`); a corpus may add its own. */
export const CONFIG_FENCES = new Set([
  'yaml',
  'yml',
  'json',
  'toml',
  'ini',
  'env',
  'dotenv',
  'hcl',
  'properties',
  'dockerfile',
]);

export const isGitHubWorkflow = (file) => /^\.github\/workflows\/.*\.ya?ml$/.test(file);
const none = () => false;

/** Each line of a repository's commit messages (merges left out), trimmed, with the commit as its source. */
export function* commitMessageLines(r, logArgs) {
  const log = r.git(['log', '--no-merges', '--format=%H%x00%B%x01', ...logArgs, 'HEAD']);
  for (const entry of log.split('\x01')) {
    const [hash = '', body = ''] = entry.trim().split('\x00');
    if (!hash) continue;
    for (const line of body.split('\n'))
      yield [line.trim(), `${r.name} commit ${hash.slice(0, 12)} (message)`];
  }
}

/**
 * A GitHub workflow's lines as `[family, kind, line]`: the commands of its `run:` steps (`workflow-run`),
 * and its other lines (`workflow`), comments left out unless `withComments`.
 */
export function* workflowLines(text, { withComments = false } = {}) {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const run = /^\s*(?:-\s*)?run:\s*([|>]-?)?\s*(.*)$/.exec(lines[i]);
    if (!run) {
      if (withComments || !/^\s*#/.test(lines[i])) yield ['workflow', 'config', lines[i].trim()];
      continue;
    }
    if (run[1]) {
      const indent = /^\s*/.exec(lines[i + 1] ?? '')[0].length;
      let j = i + 1;
      for (; j < lines.length && (/^\s*$/.test(lines[j]) || /^\s*/.exec(lines[j])[0].length >= indent); j++)
        if (lines[j].trim()) yield ['workflow-run', 'command', lines[j].trim()];
      i = j - 1;
    } else if (run[2]) yield ['workflow-run', 'command', run[2].trim()];
  }
}

/**
 * Pushes a repository's everyday texts to `found` (a benignCollector), in this order: the lines of its
 * last 3,000 commit messages, its docs' parts (`docParts(file, text)`, as markdownParts gives them),
 * changelog entries, script lines, scanner config and lock-file lines, and workflow lines, from the
 * files `spec`'s tests pick (`isDoc`, `isChangelog`, `isScript`, `isScannerConfig`, `isLockfile`,
 * `isWorkflow`; a test left out picks none). Returns the repository's files; `found` is not flushed.
 */
export function collectRepository(r, spec, found, { docParts, workflowComments = false }) {
  const files = r.files();
  const pick = (test) => r.read(files.filter(test ?? none));
  for (const [line, source] of commitMessageLines(r, ['-n', '3000']))
    found.push('commit-message', 'prose', line, source);
  for (const [file, text] of pick(spec.isDoc)) {
    const parts = docParts(file, text);
    const source = r.source(file);
    for (const line of parts.shellLines) found.push('docs-shell', 'command', line, source);
    for (const block of parts.shellBlocks) found.push('docs-shell-block', 'command', block, source, 1500);
    for (const line of parts.configLines) found.push('docs-config', 'config', line, source);
    for (const line of parts.prose) found.push('docs-prose', 'prose', line, source);
  }
  for (const [file, text] of pick(spec.isChangelog))
    for (const line of text.split('\n'))
      if (/^\s*[-*] /.test(line))
        found.push('changelog', 'prose', line.replace(/^\s*[-*] /, ''), r.source(file));
  for (const [file, text] of pick(spec.isScript))
    for (const line of text.split('\n'))
      if (!/^\s*#/.test(line)) found.push('script', 'command', line.trim(), r.source(file));
  for (const [file, text] of pick(spec.isScannerConfig))
    for (const line of text.split('\n'))
      if (!/^\s*#/.test(line)) found.push('scanner-config', 'config', line.trim(), r.source(file));
  for (const [file, text] of pick(spec.isLockfile))
    for (const line of text.split('\n')) found.push('lockfile', 'config', line.trim(), r.source(file));
  for (const [file, text] of pick(spec.isWorkflow))
    for (const [family, kind, line] of workflowLines(text, { withComments: workflowComments }))
      found.push(family, kind, line, r.source(file));
  return files;
}

/**
 * A value written in a secret's place that is no secret, by the fourth corpus's rule: few distinct
 * characters, EXAMPLE, xxxx, `<name>`, a leading $, % or #{ (a reference), or a run like abcdefgh or
 * 12345678.
 */
export function isDocsPlaceholder(secret) {
  if (new Set(secret).size <= 5) return true;
  if (/EXAMPLE|x{4,}|X{4,}|0{6,}|<[^>]*>/.test(secret)) return true;
  if (/^["']?(?:\$|%|#\{)/.test(secret)) return true;
  let run = 1;
  for (let i = 1; i < secret.length; i++) {
    const isAlnum = /[A-Za-z0-9]/.test(secret[i]);
    run = isAlnum && secret.charCodeAt(i) - secret.charCodeAt(i - 1) === 1 ? run + 1 : 1;
    if (run >= 8) return true;
  }
  return false;
}

/**
 * The fifth corpus's rule: the fourth's, and letters that, read alone, run in order (letters and digits
 * interleaved: a1b2c3d4e5f6, abc123def456ghi789).
 */
export const isAgentsPlaceholder = (secret) =>
  isDocsPlaceholder(secret) ||
  /abcdef|bcdefg|cdefgh|defghi|efghij|fghijk|ghijkl|hijklm|ijklmn|jklmno|klmnop|lmnopq|mnopqr|nopqrs|opqrst|pqrstu|qrstuv|rstuvw|stuvwx|tuvwxy|uvwxyz/i.test(
    secret.replace(/[^A-Za-z]/g, ''),
  );

/**
 * The sixth corpus's rule, which the seventh kept: the fifth's, and a name in capitals (`PASSWORD`), a
 * letter or digit repeated eight times after the start (`…aeeeeeeeeee`; a Twitter bearer token starts
 * with a run of `A`), or a block repeated to fill the value (`abcd1234abcd1234…`).
 */
export const isPlaceholder = (secret) =>
  isAgentsPlaceholder(secret) ||
  /^[A-Z_]+$/.test(secret) ||
  /([A-Za-z0-9])\1{7}/.test(secret.replace(/^(.)\1*/, '')) ||
  /^(.{2,8}?)\1{2,}/.exec(secret)?.[0].length >= secret.length * 0.75;

/** Letters only, or words joined by `_`, `-` or a space: a plain-word password's shape. */
export const WORDS = /^[A-Za-z]+(?:[-_ ][A-Za-z]+)*:?$/;

/** The environment variable a provider's secret is given in: `ACME_PASSWORD`, `_SECRET`, `_TOKEN`, `_API_KEY`. */
export function envName(provider, ruleName) {
  const base = provider.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  if (/password/i.test(ruleName)) return `${base}_PASSWORD`;
  if (/secret/i.test(ruleName)) return `${base}_SECRET`;
  if (/token|pat\b/i.test(ruleName)) return `${base}_TOKEN`;
  return `${base}_API_KEY`;
}

/**
 * A seeded generator (the same values on every run): `random()` in [0, 1), `pick(chars, n)` n characters
 * of `chars`, `between(min, max)` an integer of that range.
 */
export function seededRandom(seed) {
  let state = seed;
  const random = () => {
    state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0;
    return state / 4294967296;
  };
  const pick = (chars, n) =>
    Array.from({ length: n }, () => chars[Math.floor(random() * chars.length)]).join('');
  const between = (min, max) => min + Math.floor(random() * (max - min + 1));
  return { random, pick, between };
}
export const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';
export const DIGITS = '0123456789';
export const ALNUM = `${UPPER}${LOWER}${DIGITS}`;
export const HEX = '0123456789abcdef';
export const B64URL = `${ALNUM}-_`;
export const B64 = `${ALNUM}+/`;

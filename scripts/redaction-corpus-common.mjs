// What the scripts that build the redaction corpora from public repositories share: where the
// repositories' snapshots are, reading them, the earlier corpora (none of whose texts is used again),
// the capped choice of items, Go string literals (the scanners' tests are Go), and writing the corpus
// split into its tuning and held-out parts. Each corpus's own sources and rules stay in its script.
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

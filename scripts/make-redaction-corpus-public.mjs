#!/usr/bin/env node
// Writes test/fixtures/redaction-corpus-public.json, the third redaction corpus (issue 26): texts and
// secrets from public repositories that no earlier corpus used, each item naming its repository, commit
// and file (or commit message). Run against local snapshots of the repositories (the `fetch` of this
// project's tooling put them in one folder, `<owner>+<name>/repo`
// each; name it as the first argument or in CORPUS_MIRRORS):
//
//   Benign (must come out unchanged): commit messages of expressjs/express and vitejs/vite; the shell
//   lines of their GitHub workflows (`run:` steps), package.json scripts and the shell blocks of their
//   Markdown docs; lines of their docs, changelogs and source code.
//   Secrets (must be redacted): trufflehog's detector pattern tests (each case's input, and each of its
//   `want` values that appears verbatim in the input, as one secret), and secretlint's rule snapshots
//   (the line holding each reported range).
//
// Rules fixed before the detector ran on any item: benign lines of 12 to 400 characters, deduplicated,
// at most a fixed number per family, chosen by the sha256 of the text; trufflehog values that contain
// whitespace or "://", or are shorter than 12 characters, are left out (an id, a URL or a host is not the
// secret part), as are secretlint's account ids; no benign line is dropped for looking like a secret.
// The split into tuning and held-out parts is by sha256(text): first hex digit 0-7 tuning, 8-f held out.
import {
  capped,
  goStrings,
  mirrorsFolder,
  openRepo,
  unquote,
  writeCorpus,
} from './redaction-corpus-common.mjs';

const mirrors = mirrorsFolder();
const repo = (name) => openRepo(mirrors, name);

// ── Benign ────────────────────────────────────────────────────────────────────────────────────────────
const benign = [];
const seen = new Set();
function addBenign(text, source, kind, family) {
  const trimmed = text.replace(/\s+$/, '');
  if (trimmed.trim().length < 12 || trimmed.length > 400 || seen.has(trimmed)) return;
  seen.add(trimmed);
  benign.push({ text: trimmed, source, kind, family });
}

const LIMITS = {
  'commit-message': 800,
  'workflow-run': 300,
  'package-script': 200,
  'docs-shell': 400,
  docs: 700,
  changelog: 400,
  code: 500,
};

for (const name of ['expressjs/express', 'vitejs/vite']) {
  const r = repo(name);
  const found = Object.fromEntries(Object.keys(LIMITS).map((family) => [family, []]));
  const push = (family, kind, text, source) => found[family].push({ text, source, kind, family });
  // Commit messages: subjects and body lines, as an agent quotes them.
  const log = r.git(['log', '--no-merges', '-n', '3000', '--format=%H%x00%B%x01']);
  for (const entry of log.split('\x01')) {
    const [hash = '', body = ''] = entry.trim().split('\x00');
    if (!hash) continue;
    for (const line of body.split('\n'))
      push('commit-message', 'prose', line, `${name} commit ${hash.slice(0, 12)} (message)`);
  }
  const files = r.files();
  for (const file of files) {
    if (/(^|\/)node_modules\//.test(file) || /(^|\/)fixtures?\//.test(file)) continue;
    if (/^\.github\/workflows\/.*\.ya?ml$/.test(file)) {
      const lines = r.show(file).split('\n');
      for (let i = 0; i < lines.length; i++) {
        const match = /^\s*(?:-\s*)?run:\s*(\|)?\s*(.*)$/.exec(lines[i]);
        if (!match) continue;
        if (match[1]) {
          const indent = /^\s*/.exec(lines[i + 1] ?? '')[0].length;
          for (
            let j = i + 1;
            j < lines.length && (/^\s*$/.test(lines[j]) || /^\s*/.exec(lines[j])[0].length >= indent);
            j++
          )
            if (lines[j].trim()) push('workflow-run', 'command', lines[j].trim(), r.source(file));
        } else if (match[2]) push('workflow-run', 'command', match[2].trim(), r.source(file));
      }
    } else if (/(^|\/)package\.json$/.test(file)) {
      try {
        for (const script of Object.values(JSON.parse(r.show(file)).scripts ?? {}))
          if (typeof script === 'string') push('package-script', 'command', script, r.source(file));
      } catch {}
    } else if (/\.md$/.test(file)) {
      const text = r.show(file);
      const isChangelog = /(CHANGELOG|History)\.md$/i.test(file);
      let fence = null;
      for (const line of text.split('\n')) {
        const opening = /^\s*(```+|~~~+)\s*([\w-]*)/.exec(line);
        if (opening) {
          fence = fence ? null : opening[2].toLowerCase();
          continue;
        }
        if (fence !== null) {
          if (['sh', 'bash', 'shell', 'console', 'zsh'].includes(fence))
            push('docs-shell', 'command', line.replace(/^\s*\$\s+/, '').trim(), r.source(file));
          continue;
        }
        if (line.trim()) push(isChangelog ? 'changelog' : 'docs', 'prose', line.trim(), r.source(file));
      }
    } else if (
      /\.(ts|js|mjs|cjs)$/.test(file) &&
      !/\.d\.ts$/.test(file) &&
      !/(^|\/)(dist|test|tests|__tests__|playground)\//.test(file)
    ) {
      for (const line of r.show(file).split('\n'))
        if (line.trim()) push('code', 'code', line.trim(), r.source(file));
    }
  }
  for (const [family, items] of Object.entries(found)) {
    const fresh = [];
    const local = new Set();
    for (const item of items) {
      const text = item.text.replace(/\s+$/, '');
      if (text.trim().length < 12 || text.length > 400 || seen.has(text) || local.has(text)) continue;
      local.add(text);
      fresh.push({ ...item, text });
    }
    for (const item of capped(fresh, Math.ceil(LIMITS[family] / 2)))
      addBenign(item.text, item.source, item.kind, item.family);
  }
}

// ── Secrets ───────────────────────────────────────────────────────────────────────────────────────────
const positives = [];
const secretsSeen = new Set();
function addPositive(text, secret, format, source) {
  const key = `${secret}\0${text}`;
  if (secretsSeen.has(key) || !text.includes(secret) || text.length > 4000) return;
  secretsSeen.add(key);
  positives.push({ text, secret, format, kind: text.includes('\n') ? 'multi-line' : 'line', source });
}

/** Splits a Go argument list at top-level commas. */
function splitArgs(text) {
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
    if (c === '"' || c === '`') quote = c;
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (c === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += c;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}
function evaluate(expr, vars) {
  expr = expr.trim();
  const sprintf = /^fmt\.Sprintf\(([\s\S]*)\)$/.exec(expr);
  if (sprintf) {
    const [format, ...args] = splitArgs(sprintf[1]);
    const template = evaluate(format, vars);
    if (template === null) return null;
    const values = args.map((arg) => evaluate(arg, vars));
    if (values.some((value) => value === null)) return null;
    let index = 0;
    return template.replace(/%[sv]/g, () => values[index++] ?? '');
  }
  const terms = splitPlus(expr);
  if (terms.length > 1) {
    const values = terms.map((term) => evaluate(term, vars));
    return values.some((value) => value === null) ? null : values.join('');
  }
  if (/^"|^`/.test(expr)) return unquote(expr);
  if (/^\w+$/.test(expr)) return vars.get(expr) ?? null;
  return null;
}
function splitPlus(text) {
  const parts = [];
  let quote = null;
  let depth = 0;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      current += c;
      if (c === '\\' && quote === '"') current += text[++i] ?? '';
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === '`') quote = c;
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (c === '+' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

{
  const r = repo('trufflesecurity/trufflehog');
  for (const file of r.files()) {
    if (!/^pkg\/detectors\/.*_test\.go$/.test(file) || /integration/.test(file)) continue;
    const source = r.show(file);
    const vars = goStrings(source);
    const detector = file.split('/')[2];
    const cases = source.matchAll(
      /name:\s*("(?:[^"\\]|\\.)*"),\s*input:\s*([\s\S]*?),\s*\n\s*want:\s*\[\]string\{([\s\S]*?)\},?\s*\n/g,
    );
    for (const [, name, inputExpr, wantExpr] of cases) {
      if (/invalid|fail|not match|no match|false positive/i.test(unquote(name) ?? '')) continue;
      const input = evaluate(inputExpr, vars);
      if (!input) continue;
      for (const want of splitArgs(wantExpr)) {
        const secret = evaluate(want, vars);
        if (!secret || secret.length < 12 || /\s/.test(secret) || secret.includes('://')) continue;
        if (!input.includes(secret)) continue;
        addPositive(input.trim(), secret, `trufflehog ${detector}`, r.source(file));
      }
    }
  }
}
{
  const r = repo('secretlint/secretlint');
  for (const file of r.files()) {
    const match =
      /^(packages\/@secretlint\/(secretlint-rule-[^/]+)\/test\/snapshots\/(ng\.[^/]+))\/output\.json$/.exec(
        file,
      );
    if (!match) continue;
    const output = JSON.parse(r.show(file));
    const input = output.sourceContent;
    if (typeof input !== 'string') continue;
    for (const message of output.messages ?? []) {
      if (/ACCOUNT_ID/i.test(message.messageId ?? '')) continue;
      const [start, end] = message.range ?? [];
      // The finding is the credential's whole context in a few rules: the credential is its password
      // (a URL's userinfo) or its value (`name = value`). Relabelled after the first run, in both parts.
      const found = input.slice(start, end);
      const userinfo = /^[a-z][\w+.-]*:\/\/[^:/@\s]*:([^@\s]+)@/i.exec(found);
      const assigned = /^[\w.-]+\s*[:=]\s*(\S.*)$/.exec(found);
      const secret = userinfo ? userinfo[1] : assigned ? assigned[1] : found;
      if (secret.length < 12) continue;
      const lineStart = input.lastIndexOf('\n', start - 1) + 1;
      const lineEnd = input.indexOf('\n', end);
      const text = input.slice(lineStart, lineEnd < 0 ? input.length : lineEnd).trim();
      addPositive(
        text.length >= secret.length ? text : secret,
        secret,
        `secretlint ${match[2]} ${message.messageId}`,
        r.source(`${match[1]}/input`),
      );
    }
  }
}

writeCorpus(
  'redaction-corpus-public.json',
  'Third redaction corpus (issue 26), from public repositories no earlier corpus used; see scripts/make-redaction-corpus-public.mjs for the sources and the rules, all fixed before the detector ran. Split by the first hex digit of sha256(text): 0-7 tuning, 8-f held out.',
  benign,
  positives,
);

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository's user documentation: README.md, CHANGELOG.md and every page under docs/. */
export function docFiles(root: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) pages.push(full);
    }
  };
  walk(path.join(root, 'docs'));
  return [path.join(root, 'README.md'), path.join(root, 'CHANGELOG.md'), ...pages.sort()];
}

/** The lines of a markdown text, each marked as inside a fenced code block or not. */
function markLines(markdown: string): { text: string; inFence: boolean; line: number }[] {
  let inFence = false;
  return markdown.split('\n').map((text, index) => {
    const isFence = /^\s*```/.test(text);
    if (isFence) inFence = !inFence;
    return { text, inFence: inFence || isFence, line: index + 1 };
  });
}

/** The heading id GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens. */
export function githubSlug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' ids, a repeated one with `-1`, `-2`, ... as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text, inFence } of markLines(markdown)) {
    const match = inFence ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(text);
    if (!match?.[1]) continue;
    const slug = githubSlug(match[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Inline markdown links outside code: `[text](target)`, with the line they are on. */
export function markdownLinks(markdown: string): { target: string; line: number }[] {
  const links: { target: string; line: number }[] = [];
  for (const { text, inFence, line } of markLines(markdown)) {
    if (inFence) continue;
    const prose = text.replace(/`[^`]*`/g, '``');
    for (const match of prose.matchAll(/\]\(([^()\s]+)(?:\s+"[^"]*")?\)/g))
      if (match[1]) links.push({ target: match[1], line });
  }
  return links;
}

/**
 * The lines of `markdown` that look like table rows (`| … |`) but are in no table: a row whose line before
 * is no row starts a table only when a delimiter row (`|---|`) follows it; otherwise it is shown as a
 * paragraph (a paragraph put inside a table cuts it in two, its last rows printed as text).
 */
export function strayTableRows(markdown: string): number[] {
  const lines = markLines(markdown);
  const isRow = (at: number) => {
    const line = lines[at];
    return line !== undefined && !line.inFence && /^\s*\|/.test(line.text);
  };
  const isDelimiter = (at: number) => isRow(at) && /^\s*\|[\s:|-]*-[\s:|-]*$/.test(lines[at]?.text ?? '');
  const stray: number[] = [];
  for (let at = 0; at < lines.length; at++)
    if (isRow(at) && !isRow(at - 1) && !isDelimiter(at + 1)) stray.push(lines[at]?.line ?? 0);
  return stray;
}

/** Where a link goes wrong, or `undefined` when its file (and anchor) exist. External links are not checked. */
export function brokenLink(
  fromFile: string,
  target: string,
  readPage: (file: string) => string | undefined,
): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined;
  const [file = '', anchor] = target.split('#', 2);
  const resolved = file === '' ? fromFile : path.resolve(path.dirname(fromFile), decodeURIComponent(file));
  const text = readPage(resolved);
  if (text === undefined) return `${target}: no file ${resolved}`;
  if (anchor === undefined) return undefined;
  if (!resolved.endsWith('.md')) return `${target}: an anchor into a file that is not markdown`;
  return headingAnchors(text).has(anchor) ? undefined : `${target}: no heading with the anchor #${anchor}`;
}

/** The code in a markdown text: every inline code span and every line of a fenced block, with its line. */
export function codeTexts(markdown: string): { code: string; line: number; isSpan: boolean }[] {
  const out: { code: string; line: number; isSpan: boolean }[] = [];
  for (const { text, inFence, line } of markLines(markdown)) {
    if (inFence) {
      if (!/^\s*```/.test(text)) out.push({ code: text, line, isSpan: false });
      continue;
    }
    for (const match of text.matchAll(/`([^`]+)`/g))
      if (match[1]) out.push({ code: match[1], line, isSpan: true });
  }
  return out;
}

/** A command of the CLI as its --help shows it: its options, and its subcommands if it has any. */
export interface CliCommand {
  options: Set<string>;
  subcommands: Map<string, CliCommand>;
}

/** Reads commander's help text: the `--long` options and the command names listed. */
export function parseHelp(help: string): { options: Set<string>; commands: string[] } {
  const options = new Set<string>();
  const commands: string[] = [];
  let section = '';
  for (const line of help.split('\n')) {
    if (/^\S.*:$/.test(line)) section = line;
    const entry = /^ {2}(\S.*)$/.exec(line)?.[1];
    if (entry === undefined) continue;
    if (section === 'Options:')
      for (const match of entry.split(/\s{2,}/)[0]?.matchAll(/--[a-z][a-z-]*/g) ?? []) options.add(match[0]);
    if (section === 'Commands:') {
      const name = /^([a-z][a-z-]*)/.exec(entry)?.[1];
      if (name && name !== 'help') commands.push(name);
    }
  }
  return { options, commands };
}

/** One use of the CLI named in the docs: the command path (`['handoff', 'push']`) and the flags given. */
export interface CliMention {
  path: string[];
  flags: string[];
}

/** Splits `push\|pull` (a table cell's alternatives) or `push|pull` into its words. */
const alternatives = (word: string) => word.split(/\\?\|/).filter(Boolean);

/**
 * The CLI uses in one piece of code: after `claude-checkpoint` or `dist/cli.js`, up to a shell separator
 * or a comment; and, in a span that starts with a command's name and gives flags (`restore <id> --yes`,
 * a reference table's first column), that span.
 */
export function cliMentions(code: string, commandNames: ReadonlySet<string>): CliMention[] {
  const segments: string[] = [];
  for (const match of code.matchAll(/(?:(?:^|[\s(!])claude-checkpoint|dist\/cli\.js)(?=\s|$)(?=\s*(.*))/g))
    segments.push(match[1] ?? '');
  const first = /^([a-z][a-z-]*)/.exec(code)?.[1];
  if (segments.length === 0 && first && commandNames.has(first) && /(^|\s|\[)--[a-z]/.test(code))
    segments.push(code);
  return segments.map((segment) => {
    const words = segment
      .split(/\s\|\s|&&|;|\s#/)[0]
      ?.trim()
      .split(/\s+/)
      .filter(Boolean) ?? [''];
    // The program's own `--root <dir>` may come before the command's name.
    while (words[0] === '--root' || words[0]?.startsWith('--root='))
      words.splice(0, words[0] === '--root' ? 2 : 1);
    const path: string[] = [];
    const head = words[0] ?? '';
    if (/^[a-z][a-z-]*(\\?\|[a-z][a-z-]*)*$/.test(head)) {
      path.push(head);
      const second = words[1] ?? '';
      if (/^[a-z][a-z-]*(\\?\|[a-z][a-z-]*)*$/.test(second)) path.push(second);
    }
    const flags = [...segment.matchAll(/(?:^|[\s[|(])(--[a-z][a-z-]*)/g)]
      .map((match) => match[1] ?? '')
      .filter((flag) => words.some((word) => word.includes(flag)));
    return { path, flags };
  });
}

/** What is wrong with one CLI mention against the real CLI: unknown commands and flags. */
export function cliMentionProblems(mention: CliMention, cli: CliCommand): string[] {
  const [commandWord, subWord] = mention.path;
  const topFlags = ['--help', '--version'];
  if (commandWord === undefined)
    return mention.flags.filter((flag) => !topFlags.includes(flag)).map((flag) => `unknown flag ${flag}`);
  const problems: string[] = [];
  for (const name of alternatives(commandWord)) {
    const command = cli.subcommands.get(name);
    if (!command) {
      problems.push(`unknown command "${name}"`);
      continue;
    }
    let targets = [command];
    if (command.subcommands.size > 0 && subWord !== undefined) {
      targets = [];
      for (const sub of alternatives(subWord)) {
        const subcommand = command.subcommands.get(sub);
        if (subcommand) targets.push(subcommand);
        else problems.push(`unknown command "${name} ${sub}"`);
      }
    }
    for (const flag of mention.flags)
      for (const target of targets)
        if (!target.options.has(flag) && !command.options.has(flag) && flag !== '--help')
          problems.push(`"${name}${target === command ? '' : ` ${subWord}`}" has no flag ${flag}`);
  }
  return problems;
}

/** The environment variables a source file reads: `env.X`, `env['X']`, `'X' in env`, and named constants. */
export function envReads(source: string): Set<string> {
  const names = new Set<string>();
  for (const match of source.matchAll(/\benv\??\.([A-Z][A-Z0-9_]+)\b(?!\s*=[^=])/g))
    names.add(match[1] ?? '');
  for (const match of source.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]+)['"]\](?!\s*=[^=])/g))
    names.add(match[1] ?? '');
  for (const match of source.matchAll(/['"]([A-Z][A-Z0-9_]+)['"]\s+in\s+(?:process\.)?env\b/g))
    names.add(match[1] ?? '');
  // Names kept in constants that are then read with env[NAME]: `FOO_ENV = 'X'`, `FOO_ENV = ['X', 'Y']`,
  // and every quoted CHECKPOINT_* name.
  for (const match of source.matchAll(/\b[A-Z_]*ENV\b\s*=\s*(\[[^\]]*\]|'[^']*'|"[^"]*")/g))
    for (const name of (match[1] ?? '').matchAll(/['"]([A-Z][A-Z0-9_]+)['"]/g)) names.add(name[1] ?? '');
  for (const match of source.matchAll(/['"`](CHECKPOINT_[A-Z0-9_]+)['"`]/g)) names.add(match[1] ?? '');
  names.delete('');
  return names;
}

/** Reads a file, or `undefined` when there is none. */
export function readIfExists(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

// Whether a shell command line may destroy work in the working tree, read from the line itself: the
// pre-command snapshot (issue 25) is taken only when it may. Parsed, not grepped, so `echo rm -rf x` and
// `grep "reset --hard" log` stay harmless while `cd x && rm a`, `bash -c '…'` and `git -C dir …` are seen.
// It errs towards "may destroy": a needless snapshot costs a few milliseconds, a missed one costs work.
//
// Pure: whether a path exists comes from the caller's `kindOf`, with paths relative to the folder the
// command runs in (`cd` and `git -C` move it). Without one, every target is taken to exist.
import { REDIRECTIONS, type Token, tokenize } from './shell-tokens.js';

/** What a path is, as the caller sees it; `unknown` when it cannot say. */
export type PathKind = 'file' | 'directory' | 'missing' | 'unknown';

export interface CommandRisk {
  destructive: boolean;
  /** What may destroy work, naming the command: "rm deletes files (rm -rf src)". */
  reason?: string;
}

type KindOf = (path: string) => PathKind;

const REASON_COMMAND_CHARS = 80;
/** Nested `bash -c`, `$( )` and `-exec` deeper than this are taken as destructive rather than read on. */
const MAX_DEPTH = 8;

/** Whether `line` may destroy work, and if so which command and why. Never throws. */
export function classifyCommand(line: string, kindOf: KindOf = () => 'unknown'): CommandRisk {
  const reason = classifyLine(line, '', kindOf, 0);
  return reason === undefined ? { destructive: false } : { destructive: true, reason };
}

interface SimpleCommand {
  words: string[];
  redirections: { op: string; target: string }[];
}

/** The reason the first command that may destroy work gives, or undefined when none may. */
function classifyLine(line: string, cwd: string | null, kindOf: KindOf, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return 'commands nested too deep to read';
  const { tokens, substitutions } = tokenize(line);
  for (const substitution of substitutions) {
    const reason = classifyLine(substitution, cwd, kindOf, depth + 1);
    if (reason) return reason;
  }
  // `( )` runs in a subshell: a `cd` inside it ends with it.
  const folders: (string | null)[] = [];
  let folder = cwd;
  let command: SimpleCommand = { words: [], redirections: [] };
  const finish = (): string | undefined => {
    const current = command;
    command = { words: [], redirections: [] };
    if (current.words.length === 0 && current.redirections.length === 0) return undefined;
    const reason = classifySimple(current, folder, kindOf, depth);
    folder = folderAfter(current.words, folder);
    return reason;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.kind === 'word') {
      command.words.push(token.text);
      continue;
    }
    if (REDIRECTIONS.includes(token.op)) {
      const next = tokens[i + 1];
      if (next?.kind === 'word') {
        command.redirections.push({ op: token.op, target: next.text });
        i++;
      }
      continue;
    }
    const reason = finish();
    if (reason) return reason;
    if (token.op === '(') folders.push(folder);
    if (token.op === ')') folder = folders.length > 0 ? (folders.pop() as string | null) : folder;
  }
  return finish();
}

/** The folder the next command runs in after `cd`/`pushd`; null once it cannot be told. */
function folderAfter(words: string[], folder: string | null): string | null {
  const [name, ...args] = words;
  if (name !== 'cd' && name !== 'pushd') return folder;
  const target = args.filter((arg) => !arg.startsWith('-'))[0];
  if (target === undefined || isOpaque(target)) return null;
  return joinPath(folder, target);
}

/** Words the shell would expand into something else: `$VAR`, globs, `~`. */
function isOpaque(path: string): boolean {
  return /[$*?[~{]/.test(path);
}

function joinPath(folder: string | null, path: string): string | null {
  if (path.startsWith('/')) return path;
  if (folder === null) return null;
  const joined = folder === '' ? path : `${folder}/${path}`;
  return joined.replace(/(^|\/)\.\/(?=.)/g, '$1').replace(/\/+$/, '') || '.';
}

function kindAt(path: string, folder: string | null, kindOf: KindOf): PathKind {
  if (isOpaque(path)) return 'unknown';
  const joined = joinPath(folder, path);
  return joined === null ? 'unknown' : kindOf(joined);
}

/** A path that may be overwritten: anything but a missing one. */
function mayExist(kind: PathKind): boolean {
  return kind !== 'missing';
}

/** Devices a write to destroys nothing in: `> /dev/null`, `2> /dev/stderr`. */
function isHarmlessTarget(path: string): boolean {
  return /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/.test(path);
}

function describe(words: string[]): string {
  const text = words.join(' ');
  return text.length > REASON_COMMAND_CHARS ? `${text.slice(0, REASON_COMMAND_CHARS - 1)}…` : text;
}

function classifySimple(
  command: SimpleCommand,
  folder: string | null,
  kindOf: KindOf,
  depth: number,
): string | undefined {
  for (const { op, target } of command.redirections) {
    const truncates = op === '>' || op === '>|' || op === '&>' || (op === '>&' && !/^-?\d*-?$/.test(target));
    if (truncates && !isHarmlessTarget(target) && mayExist(kindAt(target, folder, kindOf)))
      return `${op} overwrites ${target}`;
  }
  return classifyWords(command.words, folder, kindOf, depth);
}

/** Commands that run the rest of their words as a command, and how many option words each may take. */
const WRAPPERS: Record<string, { argOptions: string[] }> = {
  sudo: { argOptions: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T'] },
  doas: { argOptions: ['-u', '-C'] },
  env: { argOptions: ['-u', '--unset', '-C', '--chdir'] },
  command: { argOptions: [] },
  builtin: { argOptions: [] },
  exec: { argOptions: ['-a'] },
  nohup: { argOptions: [] },
  time: { argOptions: ['-f', '-o'] },
  nice: { argOptions: ['-n'] },
  ionice: { argOptions: ['-c', '-n', '-p'] },
  stdbuf: { argOptions: ['-i', '-o', '-e'] },
  xargs: {
    argOptions: [
      '-a',
      '-d',
      '-E',
      '-e',
      '-I',
      '-i',
      '-L',
      '-l',
      '-n',
      '-P',
      '-s',
      '--arg-file',
      '--delimiter',
    ],
  },
  timeout: { argOptions: ['-s', '-k', '--signal', '--kill-after'] },
};
/** Reserved words that may start a command without being it: `if rm x; then`, `! git stash`. */
const KEYWORDS = new Set([
  '!',
  '{',
  '}',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'time',
]);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function classifyWords(
  all: string[],
  folder: string | null,
  kindOf: KindOf,
  depth: number,
): string | undefined {
  let words = all;
  // Leading assignments and wrappers: what runs is the first word after them.
  for (;;) {
    const first = words[0];
    if (first === undefined) return undefined;
    if (ASSIGNMENT.test(first) || KEYWORDS.has(first)) {
      words = words.slice(1);
      continue;
    }
    const wrapper = WRAPPERS[commandName(first)];
    if (!wrapper) break;
    const name = commandName(first);
    let i = 1;
    while (i < words.length) {
      const word = words[i] as string;
      if (word === '--') {
        i++;
        break;
      }
      if (name === 'command' && (word === '-v' || word === '-V')) return undefined; // only looks it up
      if (name === 'env' && ASSIGNMENT.test(word)) {
        i++;
        continue;
      }
      if (!word.startsWith('-') || word === '-') break;
      i += wrapper.argOptions.includes(word) ? 2 : 1;
    }
    // timeout's first operand is its duration.
    if (name === 'timeout' && i < words.length) i++;
    words = words.slice(i);
  }
  const name = commandName(words[0] as string);
  const args = words.slice(1);
  const reason = (why: string) => `${why} (${describe(words)})`;
  switch (name) {
    case 'rm':
    case 'rmdir':
    case 'unlink':
    case 'shred':
      return reason(`${name} deletes files`);
    case 'truncate':
      return reason('truncate cuts files short');
    case 'dd':
      return args.some((arg) => arg.startsWith('of=') && !isHarmlessTarget(arg.slice(3)))
        ? reason('dd writes over its output file')
        : undefined;
    case 'rsync':
      return args.some((arg) => /^--(delete|del$|remove-source-files)/.test(arg))
        ? reason('rsync --delete removes files')
        : undefined;
    case 'sed':
      return args.some(
        (arg) => arg === '--in-place' || arg.startsWith('--in-place=') || shortFlagBefore(arg, 'i', 'ef'),
      )
        ? reason('sed -i rewrites files in place')
        : undefined;
    case 'perl':
      return args.some((arg) => shortFlagBefore(arg, 'i', 'eEMmIlx'))
        ? reason('perl -i rewrites files in place')
        : undefined;
    case 'mv':
    case 'cp':
      return overwritesTarget(args, folder, kindOf) ? reason(`${name} onto an existing path`) : undefined;
    case 'tee':
      return !args.some((arg) => arg === '-a' || arg === '--append' || shortFlagBefore(arg, 'a', '')) &&
        args.some(
          (arg) => !arg.startsWith('-') && !isHarmlessTarget(arg) && mayExist(kindAt(arg, folder, kindOf)),
        )
        ? reason('tee overwrites an existing file')
        : undefined;
    case 'find':
      return classifyFind(args, folder, kindOf, depth, reason);
    case 'git':
      return classifyGit(args, folder, kindOf, reason);
    case 'eval':
      return classifyLine(args.join(' '), folder, kindOf, depth + 1);
  }
  if (SHELLS.has(name)) {
    const script = shellScript(args);
    return script === undefined ? undefined : classifyLine(script, folder, kindOf, depth + 1);
  }
  return undefined;
}

/** `/bin/rm` and `rm` are one command. */
function commandName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** Whether a cluster of short options (`-pi`, `-Ei`) holds `flag` before any option that takes the rest as its value. */
function shortFlagBefore(arg: string, flag: string, valueTaking: string): boolean {
  if (!/^-[^-]/.test(arg)) return false;
  for (const char of arg.slice(1)) {
    if (char === flag) return true;
    if (valueTaking.includes(char)) return false;
  }
  return false;
}

/** The script of `bash -c '…'` (also `-lc`, `-ec`), or undefined when it runs no inline script. */
function shellScript(args: string[]): string | undefined {
  let hasC = false;
  for (const arg of args) {
    if (arg === '--') continue;
    if (/^-[A-Za-z]+$/.test(arg) || /^\+[A-Za-z]+$/.test(arg)) {
      if (arg.startsWith('-') && arg.includes('c')) hasC = true;
      continue;
    }
    if (arg.startsWith('--')) continue;
    return hasC ? arg : undefined;
  }
  return undefined;
}

/** mv/cp: whether a target (or what lands inside a target folder) may already exist. */
function overwritesTarget(args: string[], folder: string | null, kindOf: KindOf): boolean {
  const operands: string[] = [];
  let targetFolder: string | undefined;
  let noTargetFolder = false;
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('--')) {
      if (arg === '--no-clobber' || arg === '--update=none' || arg.startsWith('--backup')) return false;
      if (arg === '--no-target-directory') noTargetFolder = true;
      if (arg.startsWith('--target-directory=')) targetFolder = arg.slice('--target-directory='.length);
      else if (arg === '--target-directory') targetFolder = args[++i];
    } else if (options && arg.startsWith('-') && arg !== '-') {
      if (shortFlagBefore(arg, 'n', 'tS') || shortFlagBefore(arg, 'b', 'tS')) return false;
      if (shortFlagBefore(arg, 'T', 'tS')) noTargetFolder = true;
      const at = arg.indexOf('t');
      if (at > 0) targetFolder = arg.slice(at + 1) || args[++i];
      else if (arg.endsWith('S')) i++;
    } else operands.push(arg);
  }
  const sources = targetFolder === undefined ? operands.slice(0, -1) : operands;
  const target = targetFolder ?? operands[operands.length - 1];
  if (target === undefined || sources.length === 0) return false;
  const kind = kindAt(target, folder, kindOf);
  if (kind === 'missing') return false;
  if (kind !== 'directory' || noTargetFolder) return true;
  return sources.some((source) => {
    const base = source.replace(/\/+$/, '').split('/').pop() ?? source;
    return mayExist(kindAt(`${target.replace(/\/+$/, '')}/${base}`, folder, kindOf));
  });
}

function classifyFind(
  args: string[],
  folder: string | null,
  kindOf: KindOf,
  depth: number,
  reason: (why: string) => string,
): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-delete') return reason('find -delete removes files');
    if (arg === '-exec' || arg === '-execdir' || arg === '-ok' || arg === '-okdir') {
      const end = args.findIndex((word, at) => at > i && (word === ';' || word === '+'));
      const inner = args.slice(i + 1, end === -1 ? args.length : end);
      const found = classifyWords(inner, folder, kindOf, depth + 1);
      if (found) return found;
      if (end === -1) break;
      i = end;
    }
  }
  return undefined;
}

/** git's options that come before the subcommand and take the next word as their value. */
const GIT_VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--exec-path',
  '--config-env',
]);

function classifyGit(
  args: string[],
  folder: string | null,
  kindOf: KindOf,
  reason: (why: string) => string,
): string | undefined {
  let at = 0;
  let where = folder;
  while (at < args.length && (args[at] as string).startsWith('-')) {
    const option = args[at] as string;
    if (option === '-C')
      where = isOpaque(args[at + 1] ?? '$') ? null : joinPath(where, args[at + 1] as string);
    at += GIT_VALUE_OPTIONS.has(option) ? 2 : 1;
  }
  const sub = args[at];
  const rest = args.slice(at + 1);
  const has = (...options: string[]) => rest.some((arg) => options.includes(arg));
  const shortHas = (flag: string) => rest.some((arg) => /^-[A-Za-z]+$/.test(arg) && arg.includes(flag));
  switch (sub) {
    case 'checkout': {
      const dashes = rest.indexOf('--');
      if (dashes !== -1 && dashes < rest.length - 1) return reason('git checkout -- overwrites files');
      if (has('-f', '--force')) return reason('git checkout --force discards changes');
      if (has('-b', '-B', '--orphan', '-p', '--patch')) return undefined;
      const operands = rest.filter((arg) => !arg.startsWith('-'));
      // Any operand naming an existing path (or `.`) is a pathspec: its changes are overwritten.
      return operands.some((arg) => arg === '.' || isOpaque(arg) || mayExist(kindAt(arg, where, kindOf)))
        ? reason('git checkout overwrites files')
        : undefined;
    }
    case 'restore':
      return (has('--staged') || shortHas('S')) && !(has('--worktree') || shortHas('W'))
        ? undefined
        : reason('git restore overwrites files');
    case 'reset':
      return has('--hard', '--merge') ? reason('git reset discards changes') : undefined;
    case 'clean':
      return (has('--force') || shortHas('f')) && !(has('--dry-run') || shortHas('n'))
        ? reason('git clean deletes untracked files')
        : undefined;
    case 'stash': {
      const action = rest.find((arg) => !arg.startsWith('-'));
      return action === undefined || ['push', 'save', 'drop', 'clear'].includes(action)
        ? reason('git stash takes changes out of the tree')
        : undefined;
    }
    case 'switch':
      return has('-f', '--force', '--discard-changes') ? reason('git switch discards changes') : undefined;
    case 'rm':
      return has('--cached') ? undefined : reason('git rm deletes files');
  }
  return undefined;
}

// Whether a shell command line may destroy work in the working tree, read from the line itself: the
// pre-command snapshot (issue 25) is taken only when it may. Parsed, not grepped, so `echo rm -rf x` and
// `grep "reset --hard" log` stay harmless while `cd x && rm a`, `bash -c '…'` and `git -C dir …` are seen.
// It errs towards "may destroy": a needless snapshot costs a few milliseconds, a missed one costs work.
//
// Pure: whether a path exists, or lies outside the project, comes from the caller's `kindOf`, with paths
// relative to the folder the command runs in (`cd` and `git -C` move it). Without one, every target is
// taken to exist. A command whose every target is outside the project (`rm /tmp/x`, `rm -rf ~/.cache/y`)
// destroys nothing a snapshot of it could bring back: no snapshot is taken for it.
import { splitPowerShell } from './powershell-tokens.js';
import { REDIRECTIONS, type Token, tokenize, type Word } from './shell-tokens.js';
import { clip } from './text.js';

/**
 * What a path is, as the caller sees it; `unknown` when it cannot say. `outside`: an absolute path that
 * neither lies in the project nor holds it (a snapshot of the project cannot bring it back).
 */
export type PathKind = 'file' | 'directory' | 'missing' | 'outside' | 'unknown';

export interface CommandRisk {
  destructive: boolean;
  /** What may destroy work, naming the command: "rm deletes files (rm -rf src)". */
  reason?: string;
}

type KindOf = (path: string) => PathKind;

/** How the command's paths are looked at: `kindOf`, and the home folder that `~` and `$HOME` name. */
interface Paths {
  kindOf: KindOf;
  home?: string | undefined;
  /** Told each target that is a pattern (a glob, a variable), or `null` for one whose folder is unknown. */
  onPattern?: ((pattern: string | null) => void) | undefined;
  /**
   * Told that a target told before (`root`, as kindOf was told it) stands only for what `patterns` match
   * (a find's `-name` filters, as globs where `**` spans folders), or for an unknown part of it (`null`: filters it
   * cannot read, such as `-o` or `!`).
   */
  onNarrow?: ((root: string, patterns: string[] | null) => void) | undefined;
}

const REASON_COMMAND_CHARS = 80;
/** Nested `bash -c`, `$( )` and `-exec` deeper than this are taken as destructive rather than read on. */
const MAX_DEPTH = 8;

/**
 * Whether `line` may destroy work, and if so which command and why. `shell`: the shell that runs it (a
 * POSIX shell, or PowerShell for Copilot CLI's powershell tool); `home`: what `~` and `$HOME` stand for.
 * Never throws.
 */
export function classifyCommand(
  line: string,
  kindOf: KindOf = () => 'unknown',
  options: {
    shell?: 'sh' | 'powershell';
    home?: string | undefined;
    onPattern?: ((pattern: string | null) => void) | undefined;
    onNarrow?: ((root: string, patterns: string[] | null) => void) | undefined;
  } = {},
): CommandRisk {
  const paths = { kindOf, home: options.home, onPattern: options.onPattern, onNarrow: options.onNarrow };
  const reason =
    options.shell === 'powershell'
      ? classifyPowerShell(line, '', paths, 0)
      : classifyLine(line, '', paths, 0);
  return reason === undefined ? { destructive: false } : { destructive: true, reason };
}

interface SimpleCommand {
  words: string[];
  /** `body`: a here-document's text. */
  redirections: { op: string; target: string; body?: string | undefined }[];
  /** The command whose output its stdin is (`… | bash`). */
  pipedFrom?: SimpleCommand;
}

/** What a command reads on its stdin, when that may be a script: a here-document's or here-string's text, or a pipe. */
type Stdin = { script: string } | 'pipe' | undefined;

/** The reason the first command that may destroy work gives, or undefined when none may. */
function classifyLine(line: string, cwd: string | null, paths: Paths, depth: number): string | undefined {
  if (depth > MAX_DEPTH) return 'commands nested too deep to read';
  const { tokens, substitutions } = tokenize(line);
  for (const substitution of substitutions) {
    const reason = classifyLine(substitution, cwd, paths, depth + 1);
    if (reason) return reason;
  }
  // `( )` runs in a subshell: a `cd` inside it ends with it.
  const folders: (string | null)[] = [];
  let folder = cwd;
  let command: SimpleCommand = { words: [], redirections: [] };
  const finish = (isPiped = false): string | undefined => {
    const current = command;
    command = isPiped ? { words: [], redirections: [], pipedFrom: current } : { words: [], redirections: [] };
    if (current.words.length === 0 && current.redirections.length === 0) return undefined;
    const reason = classifySimple(current, folder, paths, depth);
    folder = folderAfter(current.words, folder);
    return reason;
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    if (token.kind === 'word') {
      command.words.push(asWritten(token));
      continue;
    }
    if (token.op === '<<' || token.op === '<<-') {
      // The tokens hold no delimiter word, only the body.
      command.redirections.push({ op: token.op, target: '', body: token.body });
      continue;
    }
    if (REDIRECTIONS.includes(token.op)) {
      const next = tokens[i + 1];
      if (next?.kind === 'word') {
        command.redirections.push({ op: token.op, target: asWritten(next) });
        i++;
      }
      continue;
    }
    const reason = finish(token.op === '|' || token.op === '|&');
    if (reason) return reason;
    if (token.op === '(') folders.push(folder);
    if (token.op === ')') folder = folders.length > 0 ? (folders.pop() as string | null) : folder;
  }
  return finish();
}

/**
 * A word as a path: a quoted `~` (`rm -rf "~/x"`) is a folder named `~` here, not the home folder, and a
 * `$` quoted in the first place may be no variable; `./` keeps either from being read as outside.
 */
function asWritten(word: Word): string {
  return word.quotedStart && /^[~$]/.test(word.text) ? `./${word.text}` : word.text;
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

function kindAt(written: string, folder: string | null, paths: Paths): PathKind {
  const path = withHome(written, paths.home);
  if (isOpaque(path)) {
    // `/tmp/*.log`, `$HOME/.cache/$name`: all of it lies in the folder before the first expansion.
    const literal = path.slice(0, path.search(/[$*?[~{]/));
    const parent = literal.slice(0, literal.lastIndexOf('/'));
    if (parent.startsWith('/') && paths.kindOf(parent) === 'outside') return 'outside';
    paths.onPattern?.(joinPath(folder, path));
    return 'unknown';
  }
  const joined = joinPath(folder, path);
  if (joined === null) paths.onPattern?.(null);
  return joined === null ? 'unknown' : paths.kindOf(joined);
}

/** `~`, `~/x`, `$HOME/x` and `${HOME}/x` with the home folder, when it is known. */
function withHome(path: string, home: string | undefined): string {
  if (home === undefined || !home.startsWith('/')) return path;
  const match = /^(?:~|\$HOME|\$\{HOME\})(?=\/|$)/.exec(path);
  return match ? `${home.replace(/\/+$/, '')}${path.slice(match[0].length)}` : path;
}

/** A path that may be overwritten: anything but a missing one, or one outside the project. */
function mayExist(kind: PathKind): boolean {
  return kind !== 'missing' && kind !== 'outside';
}

/**
 * The operands of a command that takes files (options skipped, and the word after each option that takes
 * a value, named in a list or told by a test; every word after `--`).
 */
function operandsOf(
  args: readonly string[],
  valueOptions: readonly string[] | ((option: string) => boolean) = [],
): string[] {
  const takesValue =
    typeof valueOptions === 'function' ? valueOptions : (option: string) => valueOptions.includes(option);
  const operands: string[] = [];
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (options && arg === '--') options = false;
    else if (options && arg.startsWith('-') && arg !== '-') {
      if (takesValue(arg)) i++;
    } else operands.push(arg);
  }
  return operands;
}

/** The words from a command's first operand on: its options skipped, with the values of `valueOptions`. */
function operandsFrom(args: readonly string[], valueOptions: readonly string[]): string[] {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return args.slice(i + 1);
    if (!arg.startsWith('-') || arg === '-') return args.slice(i);
    if (valueOptions.includes(arg)) i++;
  }
  return [];
}

/** env's `-S STRING`, `-SSTRING`, `--split-string=STRING` at `at`: the string's words, and the index after it. */
function envSplitString(words: readonly string[], at: number): { words: string[]; next: number } | undefined {
  const word = words[at] as string;
  let text: string | undefined;
  let next = at + 1;
  if (word === '-S' || word === '--split-string') {
    text = words[at + 1];
    next = at + 2;
  } else if (word.startsWith('--split-string=')) text = word.slice('--split-string='.length);
  else if (/^-[^-]*S/.test(word) && !word.startsWith('--')) text = word.slice(word.indexOf('S') + 1);
  if (text === undefined) return undefined;
  const split = tokenize(text).tokens.flatMap((token) => (token.kind === 'word' ? [token.text] : []));
  return { words: split, next };
}

/** The command line of `su -c '…'` (`-lc`, `--command=…`, before or after the user), or undefined. */
function commandOption(args: readonly string[], valueOptions: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--command' || /^-[A-Za-z]*c$/.test(arg)) return args[i + 1] ?? '';
    if (arg.startsWith('--command=')) return arg.slice('--command='.length);
    if (valueOptions.includes(arg)) i++;
  }
  return undefined;
}

/** script -c '…' runs its command line, and writes its log over the file it names (`typescript` by default). */
function classifyScriptCommand(
  args: string[],
  folder: string | null,
  paths: Paths,
  depth: number,
  reason: (why: string) => string,
): string | undefined {
  const valueOptions = [
    '-E',
    '--echo',
    '-I',
    '--log-in',
    '-O',
    '--log-out',
    '-B',
    '--log-io',
    '-T',
    '--log-timing',
    '-m',
    '--logging-format',
    '-o',
    '--output-limit',
  ];
  const script = commandOption(args, valueOptions);
  const found = script === undefined ? undefined : classifyLine(script, folder, paths, depth + 1);
  if (found) return found;
  if (args.some((arg) => arg === '--append' || shortFlagBefore(arg, 'a', 'cEIOBTmo'))) return undefined;
  const log =
    operandsOf(
      args,
      (arg) => arg === '--command' || /^-[A-Za-z]*c$/.test(arg) || valueOptions.includes(arg),
    )[0] ?? 'typescript';
  return !isHarmlessTarget(log) && mayExist(kindAt(log, folder, paths))
    ? reason('script writes its log over an existing file')
    : undefined;
}

/** GNU parallel's options whose value is the next word. */
const PARALLEL_VALUE_OPTIONS = [
  '-a',
  '--arg-file',
  '-d',
  '--delimiter',
  '-E',
  '-I',
  '-j',
  '-P',
  '--jobs',
  '-n',
  '--max-args',
  '-N',
  '-L',
  '-l',
  '-s',
  '-S',
  '--sshlogin',
  '--colsep',
  '-C',
  '--joblog',
  '--results',
  '--tmpdir',
  '--timeout',
  '--delay',
  '--retries',
  '--halt',
  '--tag-string',
  '--workdir',
  '--wd',
  '--env',
  '--memfree',
  '--load',
];

/** parallel runs its command (words, or one line) once per argument: after `:::`, or from stdin. */
function classifyParallel(
  args: string[],
  folder: string | null,
  paths: Paths,
  depth: number,
): string | undefined {
  const rest = operandsFrom(args, PARALLEL_VALUE_OPTIONS);
  const end = rest.findIndex((arg) => arg.startsWith(':::'));
  const command = end === -1 ? rest : rest.slice(0, end);
  if (command.length === 0) return undefined;
  const inputs = end === -1 ? [] : rest.slice(end + 1).filter((arg) => !arg.startsWith(':::'));
  // Each argument goes where `{}` is, or at the end; the command line is read as its shell reads it.
  const line = command.join(' ');
  const filled = line.includes('{}')
    ? line.replaceAll('{}', inputs.join(' '))
    : `${line} ${inputs.join(' ')}`;
  return classifyLine(filled, folder, paths, depth + 1);
}

/** gawk -i inplace (`-iinplace`, `--include=inplace`) writes its output over each file it reads. */
function classifyAwk(
  args: string[],
  folder: string | null,
  paths: Paths,
  reason: (why: string) => string,
): string | undefined {
  let inPlace = false;
  let hasProgramFile = false;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    let include: string | undefined;
    if (arg === '-i' || arg === '--include') include = args[++i];
    else if (arg.startsWith('--include=')) include = arg.slice('--include='.length);
    else if (/^-i./.test(arg)) include = arg.slice(2);
    else if (['-f', '--file', '-e', '--source', '-E', '--exec'].includes(arg)) {
      hasProgramFile = true;
      i++;
    } else if (['-v', '--assign', '-F', '--field-separator', '-l', '--load'].includes(arg)) i++;
    else if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    } else if (!arg.startsWith('-') || arg === '-') operands.push(arg);
    if (include === 'inplace' || include === 'inplace.awk') inPlace = true;
  }
  if (!inPlace) return undefined;
  // Without -f or -e the first operand is the program; `var=value` operands are assignments.
  const files = (hasProgramFile ? operands : operands.slice(1)).filter((arg) => !ASSIGNMENT.test(arg));
  return allOutside(files, folder, paths) ? undefined : reason('awk -i inplace rewrites files in place');
}

/**
 * Whether every one of `targets` lies outside the project: then nothing of the project is at stake. Each
 * one is looked at, never stopping at the first inside: looking tells the caller what the command names
 * (`rm big.bin huge.bin` named big.bin only, and its snapshot left huge.bin out without a word).
 */
function allOutside(targets: readonly string[], folder: string | null, paths: Paths): boolean {
  const kinds = targets.map((target) => kindAt(target, folder, paths));
  return kinds.length > 0 && kinds.every((kind) => kind === 'outside');
}

/** Devices a write to destroys nothing in: `> /dev/null`, `2> /dev/stderr`. */
function isHarmlessTarget(path: string): boolean {
  return /^\/dev\/(null|stdout|stderr|tty|fd\/\d+)$/.test(path);
}

function describe(words: string[]): string {
  const text = words.join(' ');
  return clip(text, REASON_COMMAND_CHARS);
}

function classifySimple(
  command: SimpleCommand,
  folder: string | null,
  paths: Paths,
  depth: number,
): string | undefined {
  for (const { op, target } of command.redirections) {
    const truncates = op === '>' || op === '>|' || op === '&>' || (op === '>&' && !/^-?\d*-?$/.test(target));
    if (truncates && !isHarmlessTarget(target) && mayExist(kindAt(target, folder, paths)))
      return `${op} overwrites ${target}`;
  }
  return classifyWords(command.words, folder, paths, depth, stdinOf(command));
}

/** The last redirection of stdin wins over the pipe; a file (`< x`) or a descriptor is no script we can read. */
function stdinOf(command: SimpleCommand): Stdin {
  const input = command.redirections.findLast(({ op }) => op.startsWith('<') && op !== '<>');
  if (input === undefined) return command.pipedFrom ? outputOf(command.pipedFrom) : undefined;
  if (input.op === '<<<') return { script: input.target };
  if (input.op === '<<' || input.op === '<<-') return { script: input.body ?? '' };
  return undefined;
}

/**
 * What a command writes to a pipe, when the line says it: `echo` of plain words, `cat` of a here-document
 * or here-string. Anything else (a file, a download, a variable) is `'pipe'`: unknown.
 */
function outputOf(command: SimpleCommand): Stdin {
  const [name, ...args] = command.words;
  if (name === 'echo' && !args.some((arg) => arg.includes('$'))) {
    const text = args.filter((arg, at) => !(at === 0 && /^-[neE]+$/.test(arg)));
    return { script: text.join(' ') };
  }
  if (name === 'cat' && args.length === 0) {
    const input = stdinOf({ ...command, pipedFrom: undefined });
    if (input !== undefined) return input;
  }
  return 'pipe';
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
  setsid: { argOptions: [] },
  unbuffer: { argOptions: [] },
  busybox: { argOptions: [] },
  time: { argOptions: ['-f', '-o', '--format', '--output'] },
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
const KEYWORDS = new Set(['!', '{', '}', 'if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function classifyWords(
  all: string[],
  folder: string | null,
  paths: Paths,
  depth: number,
  stdin?: Stdin,
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
    // `coproc cmd`, `coproc NAME { cmd; }`
    if (first === 'coproc') {
      words = words[2] === '{' ? words.slice(3) : words.slice(1);
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
      // env -S 'rm -f' x: the string is split into words, which come first.
      const split = name === 'env' ? envSplitString(words, i) : undefined;
      if (split) {
        words = ['env', ...split.words, ...words.slice(split.next)];
        i = 1;
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
      return allOutside(operandsOf(args), folder, paths) ? undefined : reason(`${name} deletes files`);
    case 'truncate':
      return allOutside(operandsOf(args, ['-s', '-r', '--size', '--reference']), folder, paths)
        ? undefined
        : reason('truncate cuts files short');
    case 'dd':
      return args.some(
        (arg) =>
          arg.startsWith('of=') &&
          !isHarmlessTarget(arg.slice(3)) &&
          kindAt(arg.slice(3), folder, paths) !== 'outside',
      )
        ? reason('dd writes over its output file')
        : undefined;
    case 'rsync':
      return classifyRsync(args, folder, paths, reason);
    case 'ln':
      return classifyLink(args, folder, paths, reason);
    case 'install':
      // `install -d` makes folders; otherwise it copies onto its target as cp does.
      return args.some((arg) => arg === '--directory' || shortFlagBefore(arg, 'd', 'gmoStZ'))
        ? undefined
        : overwritesTarget(
              args.filter(
                (_, at) => !['-m', '-o', '-g', '--mode', '--owner', '--group'].includes(args[at - 1] ?? ''),
              ),
              folder,
              paths,
            )
          ? reason('install onto an existing path')
          : undefined;
    case 'tar':
      return classifyTar(args, folder, paths, reason);
    case 'unzip':
      return classifyUnzip(args, folder, paths, reason);
    case 'sort':
      return outputOption(args, ['-o', '--output'], 'o', folder, paths)
        ? reason('sort -o writes over its output file')
        : undefined;
    case 'curl':
      return outputOption(args, ['-o', '--output'], 'o', folder, paths)
        ? reason('curl -o writes over an existing file')
        : undefined;
    case 'wget':
      return outputOption(args, ['-O', '--output-document'], 'O', folder, paths)
        ? reason('wget -O writes over an existing file')
        : undefined;
    case 'sed':
      return args.some(
        (arg) => arg === '--in-place' || arg.startsWith('--in-place=') || shortFlagBefore(arg, 'i', 'ef'),
      ) && !allOutside(sedFiles(args), folder, paths)
        ? reason('sed -i rewrites files in place')
        : undefined;
    case 'perl':
    case 'ruby': {
      // perl's -e and -E hold code, ruby's -e (its -E names an encoding); -i's suffix is glued (`-i.bak`).
      const valueTaking = name === 'perl' ? 'eEMmIlx' : 'eEIrCFKTWXx0';
      const { options, operands } = interpreterOptions(args, valueTaking);
      if (!options.some((arg) => shortFlagBefore(arg, 'i', valueTaking))) return undefined;
      const inline = options.some((arg) =>
        [...(name === 'perl' ? 'eE' : 'e')].some((flag) => shortFlagBefore(arg, flag, `i${valueTaking}`)),
      );
      // Without inline code the first operand is the script; the files it edits follow.
      return allOutside(inline ? operands : operands.slice(1), folder, paths)
        ? undefined
        : reason(`${name} -i rewrites files in place`);
    }
    case 'ed':
    case 'ex':
      // Run with a script (`ed -s file < edit.ed`, `ex -sc '%s/a/b/|x' file`), they write the file they open.
      return editorFiles(args).some((file) => mayExist(kindAt(file, folder, paths)))
        ? reason(`${name} edits files in place`)
        : undefined;
    case 'patch':
      return classifyPatch(args, folder, paths, reason);
    case 'mv':
    case 'cp':
      return overwritesTarget(args, folder, paths) ? reason(`${name} onto an existing path`) : undefined;
    case 'tee':
      return !args.some((arg) => arg === '-a' || arg === '--append' || shortFlagBefore(arg, 'a', '')) &&
        args.some(
          (arg) => !arg.startsWith('-') && !isHarmlessTarget(arg) && mayExist(kindAt(arg, folder, paths)),
        )
        ? reason('tee overwrites an existing file')
        : undefined;
    case 'find':
      return classifyFind(args, folder, paths, depth, reason);
    case 'git':
      return classifyGit(args, folder, paths, depth, reason);
    case 'eval':
      return classifyLine(args.join(' '), folder, paths, depth + 1);
    case 'watch':
      // watch hands its words to `sh -c`, joined by spaces.
      return classifyLine(
        operandsFrom(args, ['-n', '--interval', '-q', '--equexit']).join(' '),
        folder,
        paths,
        depth + 1,
      );
    case 'chrt':
    case 'taskset': {
      // `chrt -p prio pid` and `taskset -p mask pid` act on a running process; otherwise the priority or
      // CPU mask comes first, then the command.
      const rest = operandsFrom(args, [
        '-T',
        '-P',
        '-D',
        '--sched-runtime',
        '--sched-period',
        '--sched-deadline',
      ]);
      const options = args.slice(0, args.length - rest.length);
      if (options.some((arg) => arg === '--pid' || shortFlagBefore(arg, 'p', ''))) return undefined;
      return classifyWords(rest.slice(1), folder, paths, depth + 1, stdin);
    }
    case 'flock': {
      // flock [options] file command…, or flock [options] file -c 'command line'
      const rest = operandsFrom(args, ['-w', '--timeout', '-E', '--conflict-exit-code']).slice(1);
      if (rest[0] === '-c' || rest[0] === '--command')
        return classifyLine(rest[1] ?? '', folder, paths, depth + 1);
      return classifyWords(rest, folder, paths, depth + 1, stdin);
    }
    case 'su':
    case 'runuser': {
      const valueOptions = ['-s', '-g', '-G', '-w', '--shell', '--group', '--supp-group'];
      // runuser -u <user> [--] <command…> runs its words as a command (no shell).
      const user = name === 'runuser' ? args.findIndex((arg) => arg === '-u' || arg === '--user') : -1;
      if (user !== -1) {
        let at = user + 2;
        while (at < args.length && valueOptions.includes(args[at] as string)) at += 2;
        if (args[at] === '--') at++;
        return classifyWords(args.slice(at), folder, paths, depth + 1, stdin);
      }
      const script = commandOption(args, valueOptions);
      return script === undefined ? undefined : classifyLine(script, folder, paths, depth + 1);
    }
    case 'script':
      return classifyScriptCommand(args, folder, paths, depth, reason);
    case 'parallel':
      return classifyParallel(args, folder, paths, depth);
    case 'awk':
    case 'gawk':
      return classifyAwk(args, folder, paths, reason);
    case 'sponge': {
      if (args.some((arg) => arg === '-a' || shortFlagBefore(arg, 'a', ''))) return undefined;
      const file = operandsOf(args)[0];
      return file !== undefined && !isHarmlessTarget(file) && mayExist(kindAt(file, folder, paths))
        ? reason('sponge writes over its file')
        : undefined;
    }
    case 'uniq': {
      // uniq's second operand is the file it writes.
      const output = operandsOf(args, [
        '-f',
        '-s',
        '-w',
        '--skip-fields',
        '--skip-chars',
        '--check-chars',
      ])[1];
      return output !== undefined &&
        output !== '-' &&
        !isHarmlessTarget(output) &&
        mayExist(kindAt(output, folder, paths))
        ? reason('uniq writes over its output file')
        : undefined;
    }
    case 'cmd':
    case 'cmd.exe': {
      // cmd /c (or /k) runs the rest of its words as one command line of cmd's.
      const at = args.findIndex((arg) => /^\/{1,2}[ck]$/i.test(arg));
      return at === -1
        ? undefined
        : classifyPowerShell(args.slice(at + 1).join(' '), folder, paths, depth + 1, true);
    }
  }
  if (SHELLS.has(name)) {
    const script = shellScript(args);
    if (script === 'stdin') {
      // A pipe may carry any script (`curl … | sh`): it is taken to be destructive.
      if (stdin === 'pipe') return reason(`${name} runs the commands piped into it`);
      return stdin === undefined ? undefined : classifyLine(stdin.script, folder, paths, depth + 1);
    }
    return script === undefined ? undefined : classifyLine(script, folder, paths, depth + 1);
  }
  if (POWERSHELLS.has(name.toLowerCase())) {
    const script = powerShellScript(args);
    // `-Command -` reads the commands from stdin, as a shell with no script does.
    if (script?.trim() === '-') {
      if (stdin === 'pipe') return reason(`${name} runs the commands piped into it`);
      return stdin === undefined ? undefined : classifyPowerShell(stdin.script, folder, paths, depth + 1);
    }
    return script === undefined ? undefined : classifyPowerShell(script, folder, paths, depth + 1);
  }
  return undefined;
}

const POWERSHELLS = new Set(['pwsh', 'powershell', 'pwsh.exe', 'powershell.exe']);

/**
 * The script of `pwsh -c '…'` / `powershell -Command …` (the rest of the line, as PowerShell takes it),
 * or of `-EncodedCommand` (base64 of UTF-16LE); undefined when it runs a file or nothing inline.
 */
function powerShellScript(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = (args[i] as string).toLowerCase();
    if (/^[-/]c(o(m(m(a(n(d)?)?)?)?)?)?$/.test(arg)) return args.slice(i + 1).join(' ');
    if (/^[-/]e(c|n(c(o(d(e(d(c(o(m(m(a(n(d)?)?)?)?)?)?)?)?)?)?)?)?)?$/.test(arg))
      return Buffer.from(args[i + 1] ?? '', 'base64').toString('utf16le');
    if (/^[-/]f(i(l(e)?)?)?$/.test(arg)) return undefined;
    if (
      /^[-/](executionpolicy|ex|ep|workingdirectory|wd|configurationname|settingsfile|inputformat|outputformat|of|if|windowstyle|w)$/.test(
        arg,
      )
    ) {
      i++;
      continue;
    }
    if (!arg.startsWith('-')) return args.slice(i).join(' ');
  }
  return undefined;
}

/** `-o FILE`, `--output=FILE`, `-oFILE`: whether the file a command writes over may exist in the project. */
function outputOption(
  args: string[],
  names: readonly string[],
  short: string,
  folder: string | null,
  paths: Paths,
): boolean {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    let target: string | undefined;
    if (names.includes(arg)) target = args[i + 1];
    else {
      const long = names.find((name) => name.startsWith('--') && arg.startsWith(`${name}=`));
      if (long) target = arg.slice(long.length + 1);
      else if (arg.startsWith(`-${short}`) && arg.length > 2 && !arg.startsWith('--')) target = arg.slice(2);
    }
    if (
      target !== undefined &&
      target !== '-' &&
      !isHarmlessTarget(target) &&
      mayExist(kindAt(target, folder, paths))
    )
      return true;
  }
  return false;
}

/** rsync: `--delete` removes files; into an existing folder of the project, it writes over its files. */
function classifyRsync(
  args: string[],
  folder: string | null,
  paths: Paths,
  reason: (why: string) => string,
): string | undefined {
  if (args.some((arg) => arg === '--dry-run' || shortFlagBefore(arg, 'n', 'eBfT'))) return undefined;
  const operands = operandsOf(args, ['-e', '-f', '-B', '-T', '--rsh', '--filter', '--exclude', '--include']);
  const destination = operands[operands.length - 1];
  // `host:path` and `rsync://` are another machine's.
  if (operands.length < 2 || destination === undefined || /^[^/]*:/.test(destination)) return undefined;
  const kind = kindAt(destination, folder, paths);
  if (kind === 'missing' || kind === 'outside') return undefined;
  if (args.some((arg) => /^--(delete|del$|remove-source-files)/.test(arg)))
    return reason('rsync --delete removes files');
  return args.includes('--ignore-existing') ? undefined : reason('rsync writes over files in the project');
}

/** ln -f / -sf: replaces an existing name with the link. */
function classifyLink(
  args: string[],
  folder: string | null,
  paths: Paths,
  reason: (why: string) => string,
): string | undefined {
  const isForced = args.some(
    (arg) => arg === '--force' || arg === '--remove-destination' || shortFlagBefore(arg, 'f', 'tS'),
  );
  if (!isForced) return undefined;
  const operands = operandsOf(args, ['-t', '-S', '--suffix', '--target-directory']);
  // `ln -sf /some/file`: the link is made in the current folder, under the target's name.
  const onto =
    operands.length === 1
      ? [...operands, (operands[0] as string).replace(/\/+$/, '').split('/').pop() ?? '']
      : args;
  return overwritesTarget(onto, folder, paths, '') ? reason('ln -f replaces an existing path') : undefined;
}

/** tar -x writes over the files it extracts, in the folder -C names (the current one by default). */
function classifyTar(
  args: string[],
  folder: string | null,
  paths: Paths,
  reason: (why: string) => string,
): string | undefined {
  const first = args[0] ?? '';
  const extracts =
    (/^[A-Za-z]+$/.test(first) && first.includes('x')) ||
    args.some(
      (arg) =>
        arg === '--extract' ||
        arg === '--get' ||
        (/^-[A-Za-z]+$/.test(arg) && shortFlagBefore(arg, 'x', 'fCT')),
    );
  if (!extracts) return undefined;
  if (args.some((arg) => ['-k', '--keep-old-files', '--skip-old-files', '--keep-newer-files'].includes(arg)))
    return undefined;
  const into = directoryOption(args, ['-C', '--directory']) ?? '.';
  return kindAt(into, folder, paths) === 'outside' ? undefined : reason('tar -x writes over existing files');
}

/**
 * GNU patch's options whose value is the next word (BSD patch's are a subset): a short one alone or ending a
 * cluster (`-p 1`, `-Np 1`; `-p1` holds its own), and the long ones.
 */
const PATCH_SHORT_VALUE = /^-[^-BDdFgioprVYxz]*[BDdFgioprVYxz]$/;
const PATCH_VALUE_OPTIONS = new Set([
  '--basename-prefix',
  '--directory',
  '--fuzz',
  '--get',
  '--ifdef',
  '--input',
  '--output',
  '--prefix',
  '--quoting-style',
  '--read-only',
  '--reject-file',
  '--reject-format',
  '--strip',
  '--suffix',
  '--version-control',
]);

/**
 * patch rewrites the files its diff names, in the folder `-d` names (the current one by default), or the
 * one file named before the patch file (`patch file.c fix.diff`); with `-o FILE` it writes that file only.
 */
function classifyPatch(
  args: string[],
  folder: string | null,
  paths: Paths,
  reason: (why: string) => string,
): string | undefined {
  // --dry-run (GNU), -C/--check (BSD) and the ones that print and exit change nothing.
  if (args.some((arg) => ['--dry-run', '--check', '-C', '--help', '--version', '-v'].includes(arg)))
    return undefined;
  const operands = operandsOf(args, (arg) => PATCH_VALUE_OPTIONS.has(arg) || PATCH_SHORT_VALUE.test(arg));
  const directory = directoryOption(args, ['-d', '--directory']);
  // patch changes into the folder -d names first: every other path is read there.
  const inside = directory === undefined ? folder : folderAt(directory, folder, paths);
  const output = directoryOption(args, ['-o', '--output']);
  if (output !== undefined)
    return output === '-' || isHarmlessTarget(output) || !mayExist(kindAt(output, inside, paths))
      ? undefined
      : reason('patch -o writes over its output file');
  const original = operands[0];
  const isOutside =
    original === undefined
      ? kindAt(directory ?? '.', folder, paths) === 'outside'
      : kindAt(original, inside, paths) === 'outside';
  return isOutside ? undefined : reason('patch rewrites the files it patches');
}

/** The folder `dir` names, seen from `folder`; null when it cannot be told (`$DIR`, a glob). */
function folderAt(dir: string, folder: string | null, paths: Paths): string | null {
  const path = withHome(dir, paths.home);
  return isOpaque(path) ? null : joinPath(folder, path);
}

/** The files `ed` and `ex` open: their operands, past the options that take a value (`-p`, `-c`, `-S`, ...). */
function editorFiles(args: string[]): string[] {
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return [...files, ...args.slice(i + 1)];
    if (arg === '--cmd') i++;
    else if (arg.startsWith('-') && arg !== '-') {
      if (/^-[^-]*[cpSuiTtwW]$/.test(arg) && !/[cpSuiTtwW]/.test(arg.slice(1, -1))) i++;
    } else if (!arg.startsWith('+')) files.push(arg);
  }
  return files;
}

/** unzip -o writes over existing files without asking, in the folder -d names (the current one by default). */
function classifyUnzip(
  args: string[],
  folder: string | null,
  paths: Paths,
  reason: (why: string) => string,
): string | undefined {
  if (!args.some((arg) => shortFlagBefore(arg, 'o', 'dx'))) return undefined;
  const into = directoryOption(args, ['-d']) ?? '.';
  return kindAt(into, folder, paths) === 'outside'
    ? undefined
    : reason('unzip -o writes over existing files');
}

/** The value of `-C dir`, `-Cdir` or `--directory=dir`. */
function directoryOption(args: string[], names: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    for (const name of names) {
      if (arg === name) found = args[i + 1];
      else if (name.startsWith('--') && arg.startsWith(`${name}=`)) found = arg.slice(name.length + 1);
      else if (!name.startsWith('--') && arg.startsWith(name) && arg.length > name.length)
        found = arg.slice(name.length);
    }
  }
  return found;
}

/** `/bin/rm` and `rm` are one command. */
function commandName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** Whether a cluster of short options (`-pi`, `-Ei`) holds `flag` before any option that takes the rest as its value. */
/**
 * The interpreter's own options (perl's, ruby's): the words before its script or `--`, without the values
 * of options that take the next word (`-e 'code'`). After the script, `-i` is the script's argument.
 */
function interpreterOptions(
  args: readonly string[],
  valueTaking: string,
): { options: string[]; operands: string[] } {
  const options: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return { options, operands: args.slice(i + 1) };
    if (!arg.startsWith('-') || arg === '-') return { options, operands: args.slice(i) };
    options.push(arg);
    // A cluster ending in an option that takes a value, with none glued to it: the value is the next word.
    if (
      !arg.startsWith('--') &&
      valueTaking.includes(arg.at(-1) as string) &&
      valueFlagEnds(arg, valueTaking)
    )
      i++;
  }
  return { options, operands: [] };
}

/** The files `sed -i` edits: its operands past the script (the first, unless -e or -f gave it), `''` dropped (BSD's `-i ''`). */
function sedFiles(args: readonly string[]): string[] {
  const operands: string[] = [];
  let hasScript = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (['--expression', '--file', '-l', '--line-length'].includes(arg)) {
      hasScript ||= arg !== '-l' && arg !== '--line-length';
      i++;
    } else if (arg.startsWith('--expression=') || arg.startsWith('--file=')) hasScript = true;
    else if (arg.startsWith('--'))
      continue; // --in-place=.bak, --posix, ...: no value of their own
    else if (/^-[^-]/.test(arg)) {
      // In a cluster, -e and -f take the rest, or the next word (`-ne 's/a/b/'`); -i takes a glued suffix.
      const at = arg.slice(1).search(/[efi]/);
      const letter = at === -1 ? undefined : arg[at + 1];
      if (letter === 'e' || letter === 'f') {
        hasScript = true;
        if (at + 2 === arg.length) i++;
      }
    } else if (arg !== '') operands.push(arg);
  }
  return (hasScript ? operands : operands.slice(1)).filter((arg) => arg !== '');
}

/** Whether the value-taking option that ends `arg` has no value glued to it (`-pe`, not `-I/lib`). */
function valueFlagEnds(arg: string, valueTaking: string): boolean {
  for (const [index, char] of [...arg.slice(1)].entries())
    if (valueTaking.includes(char)) return index === arg.length - 2;
  return false;
}

function shortFlagBefore(arg: string, flag: string, valueTaking: string): boolean {
  if (!/^-[^-]/.test(arg)) return false;
  for (const char of arg.slice(1)) {
    if (char === flag) return true;
    if (valueTaking.includes(char)) return false;
  }
  return false;
}

/** Shell options whose value is the next word (`bash --rcfile x`, `fish --init-command cmd`). */
const SHELL_VALUE_OPTIONS = new Set(['--rcfile', '--init-file', '--init-command']);

/**
 * The script of `bash -c '…'` (also `-lc`, `-ec`, past the values of `-o`/`-O`/`+o`: `bash -euo pipefail
 * -c '…'`); `'stdin'` when the shell reads its commands from stdin (no operand, or `-s`); undefined when
 * it runs a script file, or nothing (`-n` only reads).
 */
function shellScript(args: string[]): string | 'stdin' | undefined {
  let hasC = false;
  let readsStdin = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--' || arg === '-') {
      i++;
      break;
    }
    if (/^[-+][A-Za-z]+$/.test(arg)) {
      if (arg.startsWith('-')) {
        if (arg.includes('c')) hasC = true;
        if (arg.includes('s')) readsStdin = true;
        if (arg.includes('n')) return undefined;
      }
      // -o and -O name an option in the next word, one word for each.
      i += arg.replace(/[^oO]/g, '').length;
      continue;
    }
    if (arg.startsWith('--command=')) return arg.slice('--command='.length);
    if (arg === '--command') hasC = true;
    else if (arg.startsWith('--')) {
      if (SHELL_VALUE_OPTIONS.has(arg)) i++;
    } else break;
  }
  if (hasC) return args[i];
  return readsStdin || i >= args.length ? 'stdin' : undefined;
}

/**
 * mv/cp (and ln, install, git mv): whether a target (or what lands inside a target folder) may already
 * exist. `noClobber`: the short option that keeps existing files (ln's `-n` means something else).
 */
function overwritesTarget(args: string[], folder: string | null, paths: Paths, noClobber = 'n'): boolean {
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
      if ((noClobber && shortFlagBefore(arg, noClobber, 'tS')) || shortFlagBefore(arg, 'b', 'tS'))
        return false;
      if (shortFlagBefore(arg, 'T', 'tS')) noTargetFolder = true;
      const at = arg.indexOf('t');
      if (at > 0) targetFolder = arg.slice(at + 1) || args[++i];
      else if (arg.endsWith('S')) i++;
    } else operands.push(arg);
  }
  const sources = targetFolder === undefined ? operands.slice(0, -1) : operands;
  const target = targetFolder ?? operands[operands.length - 1];
  if (target === undefined || sources.length === 0) return false;
  const kind = kindAt(target, folder, paths);
  if (kind === 'missing' || kind === 'outside') return false;
  if (kind !== 'directory' || noTargetFolder) return true;
  return sources.some((source) => {
    const base = source.replace(/\/+$/, '').split('/').pop() ?? source;
    return mayExist(kindAt(`${target.replace(/\/+$/, '')}/${base}`, folder, paths));
  });
}

function classifyFind(
  args: string[],
  folder: string | null,
  paths: Paths,
  depth: number,
  reason: (why: string) => string,
): string | undefined {
  // The folders find starts from come before its expression; all outside the project, it destroys nothing there.
  const end = args.findIndex((arg) => arg.startsWith('-') || arg === '(' || arg === '!');
  const roots = args.slice(0, end === -1 ? args.length : end);
  if (allOutside(roots, folder, paths)) return undefined;
  const expression = args.slice(end === -1 ? args.length : end);
  const found = (why: string) => {
    narrowFind(roots, expression, folder, paths);
    return why;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-delete') return found(reason('find -delete removes files'));
    if (arg === '-exec' || arg === '-execdir' || arg === '-ok' || arg === '-okdir') {
      const end = args.findIndex((word, at) => at > i && (word === ';' || word === '+'));
      const inner = args.slice(i + 1, end === -1 ? args.length : end);
      const destroys = classifyWords(inner, folder, paths, depth + 1);
      if (destroys) return found(destroys);
      if (end === -1) break;
      i = end;
    }
  }
  return undefined;
}

/** find's actions: a filter after the first of them does not limit what it does. */
const FIND_ACTIONS = new Set(['-delete', '-exec', '-execdir', '-ok', '-okdir']);
/** find's operators: with one of them, its filters may reach any file (`! -name '*.pyc'`). */
const FIND_OPERATORS = new Set(['-o', '-or', '!', '-not', '(', ')', ',']);

/**
 * What a destructive find reaches under its folders, told through onNarrow: the paths its `-name`,
 * `-iname` and `-path` filters match (a review of issue 26: `find . -name '*.pyc' -delete` asked about a
 * large file it cannot touch), or an unknown part of them when an operator may widen them. Filters it does
 * not read (`-type`, `-size`, `-regex`) only narrow further: left aside, what it tells may be too much,
 * never too little.
 */
function narrowFind(
  roots: readonly string[],
  expression: readonly string[],
  folder: string | null,
  paths: Paths,
) {
  if (!paths.onNarrow) return;
  const patterns: Array<(root: string) => string> = [];
  let isUnsure = false;
  for (let i = 0; i < expression.length; i++) {
    const word = expression[i] as string;
    if (FIND_ACTIONS.has(word)) break;
    if (FIND_OPERATORS.has(word)) isUnsure = true;
    const value = expression[i + 1];
    if (value === undefined) continue;
    if (word === '-name' || word === '-iname') {
      const name = word === '-iname' ? anyCase(value) : value;
      // Matched against the last part of each path below the folder, and the folder itself.
      patterns.push((root) => `${root}/**/${name}`);
      i++;
    } else if (word === '-path' || word === '-wholename' || word === '-ipath' || word === '-iwholename') {
      // find's `*` matches `/` too in a path.
      const pattern = value.replace(/\*+/g, '**');
      patterns.push(() => (word.startsWith('-i') ? anyCase(pattern) : pattern));
      i++;
    }
  }
  if (!isUnsure && patterns.length === 0) return;
  for (const root of roots.length > 0 ? roots : ['.']) {
    const joined = joinPath(folder, withHome(root, paths.home));
    if (joined === null || isOpaque(root)) continue;
    const narrowed = patterns
      .map((pattern) => joinPath(folder, pattern(root.replace(/\/+$/, '') || '/')))
      .filter((pattern): pattern is string => pattern !== null);
    paths.onNarrow(joined, isUnsure ? null : narrowed);
  }
}

/** A glob that matches in any case: each letter as `[aA]` (outside brackets). */
function anyCase(pattern: string): string {
  let inBrackets = false;
  let result = '';
  for (const char of pattern) {
    if (char === '[') inBrackets = true;
    else if (char === ']') inBrackets = false;
    const lower = char.toLowerCase();
    const upper = char.toUpperCase();
    result += !inBrackets && lower !== upper ? `[${lower}${upper}]` : char;
  }
  return result;
}

/**
 * Tells the paths a git command's pathspecs name, relative to the folder it runs in (`where`), so that a
 * warning about what a snapshot leaves out names only those (a review of issue 26: `git restore a.txt`
 * warned about an unrelated large file). A glob's `*` spans folders in a pathspec; magic (`:/`, `:(glob)`)
 * may be anything.
 */
function tellPathspecs(specs: readonly string[], where: string | null, paths: Paths): void {
  for (const spec of specs) {
    if (spec.startsWith(':')) paths.onPattern?.(null);
    else kindAt(isOpaque(spec) ? spec.replace(/\*+/g, '**') : spec, where, paths);
  }
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
  paths: Paths,
  depth: number,
  reason: (why: string) => string,
): string | undefined {
  let at = 0;
  let where = folder;
  const aliases = new Map<string, string>();
  while (at < args.length && (args[at] as string).startsWith('-')) {
    const option = args[at] as string;
    if (option === '-C')
      where = isOpaque(args[at + 1] ?? '$') ? null : joinPath(where, args[at + 1] as string);
    const alias = option === '-c' ? /^alias\.([^=]+)=(.*)$/is.exec(args[at + 1] ?? '') : null;
    if (alias) aliases.set((alias[1] as string).toLowerCase(), alias[2] as string);
    at += GIT_VALUE_OPTIONS.has(option) ? 2 : 1;
  }
  // Another repository (`git -C /elsewhere reset --hard`): nothing of this project's tree is at stake.
  if (where?.startsWith('/') && paths.kindOf(where) === 'outside') return undefined;
  let sub = args[at];
  let rest = args.slice(at + 1);
  // `git -c alias.x='!cmd' x` runs cmd in a shell, at the top of the work tree; `alias.x='reset --hard'`
  // stands for those words.
  const alias = sub === undefined ? undefined : aliases.get(sub.toLowerCase());
  if (alias?.startsWith('!'))
    return classifyLine(`${alias.slice(1)} ${rest.join(' ')}`, null, paths, depth + 1);
  if (alias !== undefined) {
    const words = tokenize(alias).tokens.flatMap((token) => (token.kind === 'word' ? [token.text] : []));
    [sub, rest] = [words[0], [...words.slice(1), ...rest]];
  }
  const has = (...options: string[]) => rest.some((arg) => options.includes(arg));
  const shortHas = (flag: string) => rest.some((arg) => /^-[A-Za-z]+$/.test(arg) && arg.includes(flag));
  switch (sub) {
    case 'checkout': {
      const dashes = rest.indexOf('--');
      if (dashes !== -1 && dashes < rest.length - 1) {
        tellPathspecs(rest.slice(dashes + 1), where, paths);
        return reason('git checkout -- overwrites files');
      }
      if (has('-f', '--force')) return reason('git checkout --force discards changes');
      if (has('-b', '-B', '--orphan', '-p', '--patch')) return undefined;
      const operands = rest.filter((arg) => !arg.startsWith('-'));
      // Any operand naming an existing path (or `.`) is a pathspec: its changes are overwritten.
      return operands.some((arg) => arg === '.' || isOpaque(arg) || mayExist(kindAt(arg, where, paths)))
        ? reason('git checkout overwrites files')
        : undefined;
    }
    case 'restore': {
      if ((has('--staged') || shortHas('S')) && !(has('--worktree') || shortHas('W'))) return undefined;
      // Pathspecs read from a file name what it cannot tell.
      if (rest.some((arg) => arg.startsWith('--pathspec-from-file'))) paths.onPattern?.(null);
      else tellPathspecs(operandsOf(rest, ['-s', '--source']), where, paths);
      return reason('git restore overwrites files');
    }
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
    case 'checkout-index':
      return has('-f', '--force') || shortHas('f')
        ? reason('git checkout-index -f overwrites files')
        : undefined;
    case 'read-tree':
      return (has('-u') || shortHas('u')) && (has('--reset', '-m') || shortHas('m'))
        ? reason('git read-tree -u overwrites files')
        : undefined;
    case 'apply':
      // --cached writes the index only; --check, --stat, --numstat and --summary only read the patch.
      if (has('--cached')) return undefined;
      return has('--check', '--stat', '--numstat', '--summary') && !has('--apply')
        ? undefined
        : reason('git apply rewrites files');
    case 'merge-file': {
      // The merge is written over its first file, unless it goes to stdout or to the object store.
      if (has('-p', '--stdout', '--object-id')) return undefined;
      // Always three files, the merge going over the first: counted from the end, past any option's value.
      const current = operandsOf(rest, ['-L']).at(-3);
      return current === undefined || mayExist(kindAt(current, where, paths))
        ? reason('git merge-file writes over its first file')
        : undefined;
    }
    case 'am':
    case 'cherry-pick':
    case 'merge':
    case 'rebase':
    case 'revert': {
      // Git refuses to start one of these over local changes it would overwrite, and the commits they move
      // past stay in the reflog. --abort and --skip reset the tree: a half-done resolution is thrown away
      // (by a rebase's, every change in the tree).
      const stop = rest.find((arg) => arg === '--abort' || arg === '--skip');
      return stop === undefined ? undefined : reason(`git ${sub} ${stop} discards changes`);
    }
    case 'submodule': {
      // foreach runs its command line in each submodule, folders of this tree.
      const foreach = rest.indexOf('foreach');
      if (foreach !== -1) {
        const line = operandsFrom(rest.slice(foreach + 1), []).join(' ');
        return classifyLine(line, null, paths, depth + 1);
      }
      const action = rest.find((arg) => !arg.startsWith('-'));
      return (action === 'update' || action === 'deinit') && (has('-f', '--force') || shortHas('f'))
        ? reason(`git submodule ${action} --force discards changes in submodules`)
        : undefined;
    }
    case 'mv':
      // Without -f, git mv refuses to move onto an existing path.
      return (has('-f', '--force') || shortHas('f')) && overwritesTarget(rest, where, paths, '')
        ? reason('git mv -f onto an existing path')
        : undefined;
  }
  return undefined;
}

type CmdletKind = 'remove' | 'move' | 'copy' | 'set' | 'out' | 'clear' | 'new' | 'tee' | 'export';

/** PowerShell's destructive cmdlets, by each name and alias (aliases of both Windows and pwsh). */
const POWERSHELL_CMDLETS: Record<string, CmdletKind> = {
  'remove-item': 'remove',
  ri: 'remove',
  rm: 'remove',
  rmdir: 'remove',
  rd: 'remove',
  del: 'remove',
  erase: 'remove',
  'move-item': 'move',
  mi: 'move',
  move: 'move',
  mv: 'move',
  'copy-item': 'copy',
  cpi: 'copy',
  copy: 'copy',
  cp: 'copy',
  'set-content': 'set',
  sc: 'set',
  'out-file': 'out',
  'clear-content': 'clear',
  clc: 'clear',
  'new-item': 'new',
  ni: 'new',
  'tee-object': 'tee',
  tee: 'tee',
  'export-csv': 'export',
  epcsv: 'export',
  'export-clixml': 'export',
};

/** Parameters that take a value, per kind of cmdlet (PowerShell accepts any unambiguous prefix). */
const POWERSHELL_VALUES: Record<string, string[]> = {
  remove: ['path', 'literalpath', 'filter', 'include', 'exclude', 'credential', 'stream'],
  move: ['path', 'literalpath', 'destination', 'filter', 'include', 'exclude', 'credential'],
  copy: [
    'path',
    'literalpath',
    'destination',
    'filter',
    'include',
    'exclude',
    'credential',
    'fromsession',
    'tosession',
  ],
  set: ['path', 'literalpath', 'value', 'encoding', 'filter', 'include', 'exclude', 'credential', 'stream'],
  out: ['filepath', 'literalpath', 'encoding', 'width', 'inputobject'],
  clear: ['path', 'literalpath', 'filter', 'include', 'exclude', 'credential', 'stream'],
  new: ['path', 'name', 'itemtype', 'type', 'value', 'credential'],
  tee: ['filepath', 'literalpath', 'variable', 'inputobject', 'encoding'],
  export: [
    'path',
    'literalpath',
    'delimiter',
    'encoding',
    'inputobject',
    'usequotes',
    'quotefields',
    'depth',
  ],
  start: [
    'filepath',
    'argumentlist',
    'args',
    'workingdirectory',
    'verb',
    'windowstyle',
    'redirectstandardoutput',
    'redirectstandarderror',
    'redirectstandardinput',
    'credential',
  ],
};
/** The common parameters every cmdlet takes that have a value: `-ErrorAction Stop`, `-ev err`. */
const POWERSHELL_COMMON_VALUES = [
  'erroraction',
  'warningaction',
  'informationaction',
  'errorvariable',
  'warningvariable',
  'informationvariable',
  'outvariable',
  'outbuffer',
  'pipelinevariable',
];
/** The common parameters' aliases, each standing for its full name (switches too: `-wi` is -WhatIf). */
const POWERSHELL_ALIASES: Record<string, string> = {
  ea: 'erroraction',
  wa: 'warningaction',
  infa: 'informationaction',
  ev: 'errorvariable',
  wv: 'warningvariable',
  iv: 'informationvariable',
  ov: 'outvariable',
  ob: 'outbuffer',
  pv: 'pipelinevariable',
  vb: 'verbose',
  wi: 'whatif',
  cf: 'confirm',
};
const POWERSHELL_SWITCHES = [
  'force',
  'recurse',
  'whatif',
  'confirm',
  'append',
  'noclobber',
  'passthru',
  'nonewline',
  'verbose',
];

/** The reason the first command of a PowerShell line that may destroy work gives, or undefined. */
function classifyPowerShell(
  line: string,
  cwd: string | null,
  paths: Paths,
  depth: number,
  isCmd = false,
): string | undefined {
  if (depth > MAX_DEPTH) return 'commands nested too deep to read';
  let folder = cwd;
  const commands = splitPowerShell(line);
  for (let at = 0; at < commands.length; at++) {
    const { words: all, redirections } = commands[at] as (typeof commands)[number];
    for (const { op, target } of redirections) {
      const file = target.replaceAll('\\', '/');
      if (op === '>' && !/^(\$null|nul)$/i.test(file) && mayExist(kindAt(file, folder, paths)))
        return `> overwrites ${target}`;
    }
    if (all.length === 0) continue;
    // cmd's switches (`del /q`, `rd /s`) are no paths.
    const words = isCmd ? all.filter((word, i) => i === 0 || !/^\/[A-Za-z-]{1,2}(:\S*)?$/.test(word)) : all;
    const reason = (why: string) => `${why} (${describe(words)})`;
    const dotNet = /^\[(?:system\.)?io\.(file|directory)\]::(\w+)$/i.exec(words[0] as string);
    if (dotNet) {
      // `[IO.File]::Delete('x')`: the arguments are the command after it, split at the parenthesis.
      const method = `${(dotNet[1] as string).toLowerCase()}.${(dotNet[2] as string).toLowerCase()}`;
      const args = commands[at + 1]?.words.flatMap(splitList) ?? [];
      if (!DOTNET_WRITES.has(method) && !(/\.(copy|move)$/.test(method) && args.length > 2)) continue;
      const target = args[0];
      if (target !== undefined && kindAt(target, folder, paths) === 'outside') continue;
      return reason(`[${dotNet[1]}]::${dotNet[2]} deletes or writes over files`);
    }
    const name = commandName((words[0] as string).replaceAll('\\', '/'))
      .toLowerCase()
      .replace(/\.exe$/, '');
    const parsed = parsePowerShellArgs(name, words.slice(1));
    if (['cd', 'chdir', 'set-location', 'sl', 'push-location', 'pushd'].includes(name)) {
      const target = parsed.named.path ?? parsed.named.literalpath ?? parsed.positional[0];
      folder = target === undefined || isOpaque(target) ? null : joinPath(folder, target);
      continue;
    }
    if (name === 'invoke-expression' || name === 'iex') {
      const found = classifyPowerShell(words.slice(1).join(' '), folder, paths, depth + 1);
      if (found) return found;
      continue;
    }
    if (name === 'start-process' || name === 'saps' || name === 'start') {
      const found = classifyStartProcess(parsed, folder, paths, depth, reason);
      if (found) return found;
      continue;
    }
    // cmd's own commands are these; its `sc`, `rm` or `tee` are programs of the same name.
    const kind = isCmd && !CMD_BUILTINS.has(name) ? undefined : POWERSHELL_CMDLETS[name];
    const found =
      kind === undefined
        ? classifyWords([name, ...words.slice(1)], folder, paths, depth + 1)
        : classifyCmdlet(kind, parsed, folder, paths, reason);
    if (found) return found;
  }
  return undefined;
}

/** cmd's built-in commands that PowerShell's aliases read the same way (`del /q x`, `rd /s x`, `copy /y a b`). */
const CMD_BUILTINS = new Set(['del', 'erase', 'rd', 'rmdir', 'copy', 'move']);

/** .NET's static methods that delete or write over a file (Copy and Move only with their overwrite argument). */
const DOTNET_WRITES = new Set([
  'file.delete',
  'file.writealltext',
  'file.writeallbytes',
  'file.writealllines',
  'file.replace',
  'file.create',
  'file.createtext',
  'file.openwrite',
  'directory.delete',
]);

/**
 * Start-Process runs its -FilePath with its -ArgumentList (joined into one command line) and may write
 * its -RedirectStandardOutput / -RedirectStandardError over a file.
 */
function classifyStartProcess(
  { named, positional }: PowerShellArgs,
  folder: string | null,
  paths: Paths,
  depth: number,
  reason: (why: string) => string,
): string | undefined {
  for (const file of [named.redirectstandardoutput, named.redirectstandarderror])
    if (file !== undefined && mayExist(kindAt(file, folder, paths)))
      return reason('Start-Process writes its output over an existing file');
  const program = named.filepath ?? positional.shift();
  if (program === undefined) return undefined;
  const list = named.argumentlist ?? named.args ?? positional[0] ?? '';
  const words = tokenize(list.split('\n').join(' ')).tokens.flatMap((token) =>
    token.kind === 'word' ? [token.text] : [],
  );
  const name = commandName(program)
    .toLowerCase()
    .replace(/\.exe$/, '');
  return classifyWords([name, ...words], folder, paths, depth + 1);
}

interface PowerShellArgs {
  named: Record<string, string>;
  switches: Set<string>;
  positional: string[];
}

/** A cmdlet's arguments: named values (`-Path x`, `-Path:x`), switches, positional ones; paths with `/`. */
function parsePowerShellArgs(name: string, args: string[]): PowerShellArgs {
  const kind = ['start-process', 'saps', 'start'].includes(name) ? 'start' : POWERSHELL_CMDLETS[name];
  const values = POWERSHELL_VALUES[kind ?? ''] ?? ['path', 'literalpath'];
  const parsed: PowerShellArgs = { named: {}, switches: new Set(), positional: [] };
  // `a, b` is one list over two words: each word that ends in a comma takes the next one on.
  const listAt = (start: number): { text: string; end: number } => {
    let text = args[start] ?? '';
    let end = start;
    while (text.endsWith(',') && end + 1 < args.length) text += args[++end];
    return { text, end };
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!/^-[A-Za-z]/.test(arg)) {
      const list = listAt(i);
      parsed.positional.push(...splitList(list.text));
      i = list.end;
      continue;
    }
    const colon = arg.indexOf(':');
    const written = arg.slice(1, colon === -1 ? undefined : colon).toLowerCase();
    const given = POWERSHELL_ALIASES[written] ?? written;
    // Any other parameter (`-Debug`, `-NoTypeInformation`) is taken for a switch: the next word is not its value.
    const flag = POWERSHELL_SWITCHES.find((known) => known.startsWith(given));
    const value = flag
      ? undefined
      : (values.find((known) => known.startsWith(given)) ??
        POWERSHELL_COMMON_VALUES.find((known) => known.startsWith(given)));
    if (flag) {
      if (colon === -1 || !/^\$?false$/i.test(arg.slice(colon + 1))) parsed.switches.add(flag);
    } else if (value) {
      let text: string | undefined = arg.slice(colon + 1);
      if (colon === -1 && i + 1 < args.length) {
        const list = listAt(i + 1);
        text = list.text;
        i = list.end;
      } else if (colon === -1) text = undefined;
      if (text !== undefined) parsed.named[value] = splitList(text).join('\n');
    }
  }
  return parsed;
}

/** `a,b` is a list of two paths in PowerShell; `\` separates folders on Windows. */
function splitList(text: string): string[] {
  return text
    .split(',')
    .filter((item) => item !== '')
    .map((item) => item.replaceAll('\\', '/'));
}

function classifyCmdlet(
  kind: CmdletKind,
  { named, switches, positional }: PowerShellArgs,
  folder: string | null,
  paths: Paths,
  reason: (why: string) => string,
): string | undefined {
  if (switches.has('whatif')) return undefined;
  const listed = (value: string | undefined) => (value === undefined ? [] : value.split('\n'));
  const targets = [...listed(named.path), ...listed(named.literalpath)];
  const mayHarm = (files: string[]) => files.some((file) => mayExist(kindAt(file, folder, paths)));
  switch (kind) {
    case 'remove': {
      const all = [...targets, ...positional];
      return allOutside(all, folder, paths) ? undefined : reason('Remove-Item deletes files');
    }
    case 'move':
    case 'copy': {
      const sources = targets.length > 0 ? targets : positional.slice(0, 1);
      const destination = named.destination ?? (targets.length > 0 ? positional[0] : positional[1]) ?? '.';
      if (sources.length === 0)
        return reason(`${kind === 'move' ? 'Move' : 'Copy'}-Item onto an existing path`);
      return overwritesTarget(['--', ...sources, destination], folder, paths)
        ? reason(`${kind === 'move' ? 'Move' : 'Copy'}-Item onto an existing path`)
        : undefined;
    }
    case 'set':
    case 'clear': {
      const files = targets.length > 0 ? targets : positional.slice(0, 1);
      const verb = kind === 'set' ? 'Set-Content writes over' : 'Clear-Content empties';
      return files.length === 0 || mayHarm(files) ? reason(`${verb} an existing file`) : undefined;
    }
    case 'out':
    case 'tee':
    case 'export': {
      // Tee-Object -Variable keeps its copy in a variable, not a file.
      if (switches.has('append') || switches.has('noclobber') || named.variable !== undefined)
        return undefined;
      const files = [...listed(named.filepath), ...listed(named.path), ...listed(named.literalpath)];
      const file = files.length > 0 ? files : positional.slice(0, 1);
      const cmdlet = kind === 'out' ? 'Out-File' : kind === 'tee' ? 'Tee-Object' : 'Export-Csv';
      return mayHarm(file) ? reason(`${cmdlet} writes over an existing file`) : undefined;
    }
    case 'new': {
      if (!switches.has('force') || /^(directory|dir)$/i.test(named.itemtype ?? named.type ?? ''))
        return undefined;
      const base = targets[0] ?? positional[0] ?? '.';
      const file = named.name === undefined ? base : `${base.replace(/\/+$/, '')}/${named.name}`;
      return mayHarm([file]) ? reason('New-Item -Force writes over an existing file') : undefined;
    }
  }
}

/**
 * Who reads a message: a person at the CLI, or a model through the MCP tools (and the hooks, whose
 * output reaches the model). Each is told its own words, the CLI's commands and flags or the tools'
 * names and parameters, never the other's (issue 26).
 */
import path from 'node:path';
import { escapeControls, quotePath, shellWord } from './quote.js';
import { hasRawBytes } from './raw-path.js';

export type Surface = 'cli' | 'mcp';

/** The same pointers, in each surface's words. */
export interface SurfaceWords {
  /** How to save a checkpoint. */
  saveCheckpoint: string;
  /** How to take a snapshot. */
  takeSnapshot: string;
  /** How to apply a restore of snapshot `id` (and only `paths`, when given) that was only planned. */
  applyRestore: (id: string, paths: readonly string[]) => string;
  /** The argument that names the project root. */
  projectRoot: string;
  /** Where to see the snapshots. */
  listSnapshots: string;
  /** How to see `total` snapshots when a list showed only the newest (at most 1,000 over MCP). */
  listMore: (total: number) => string;
  /** How to bring files back from snapshot `id`. */
  restore: (id: string) => string;
  /** How to read the whole checkpoint, when the brief shows part of it. */
  loadFull: string;
  /**
   * How to apply a restore of snapshot `id` (and only `paths`, when given) at once: every undo hint
   * (restore, rewind, pull) says it so, with the paths the restore it undoes was limited to.
   */
  restoreNow: (id: string, paths?: readonly string[]) => string;
  /**
   * How to apply a pull of handoff `name` (from `remote`, when one was named; with `--checkout`, when
   * `checkout`) that was only planned.
   */
  applyPull: (name: string, remote?: string, checkout?: boolean) => string;
  /** How to pull a handoff made on another commit: check that commit out first. */
  pullCheckout: string;
  /** How to push a handoff past the secret scan. */
  allowSecrets: string;
  /** How to push a handoff without running the project's pre-push hook. */
  skipPrePush: string;
  /** How to push a handoff over one that changed on the remote since this machine saw it. */
  replaceHandoff: string;
  /** How to save and keep what the checkpoint holds (a merge), after a replace dropped some of it. */
  keepBySaving: string;
  /** How to name another remote. */
  otherRemote: string;
  /** How to name a handoff. */
  handoffName: string;
  /** The argument that names a handoff. */
  handoffNameField: string;
  /** A whole clause: how to see the handoffs on a remote (after "no handoff …: "). */
  listHandoffs: string;
  /** How to take another machine's handoff before pushing over it. */
  pullFirst: (name: string) => string;
  /** The argument that names a snapshot's trigger. */
  trigger: string;
  /** The `index`th path of a restore. */
  restorePath: (index: number) => string;
  /** How to pull handoff `name` on another machine or clone, after a push. */
  continueHandoff: (name: string) => string;
  /** After "nothing was changed; ": how to remove the snapshots whose borrowed content was pruned. */
  removeDamaged: string;
  /** After a wrong setting's message: what to do about it. */
  fixSetting: string;
  /** How to compare snapshot `from` with snapshot `to`, when `to` was given where a path goes. */
  compareSnapshots: (from: string, to: string) => string;
  /** How to restore snapshot `id`, when it was given where a path goes. */
  restoreOther: (id: string) => string;
}

/**
 * Where a CLI command runs, when not in the project root: the paths of the commands it prints are written
 * relative to `cwd`, as the CLI takes a person's paths (see toProjectPath), so they work as printed.
 */
export interface CommandFolder {
  /** The project root, absolute and resolved. */
  projectRoot: string;
  /** The current folder, absolute. */
  cwd: string;
}

/**
 * A `claude-checkpoint` command line that works as printed from the folder the user ran the CLI in:
 * `command` (trusted words such as `handoff pull`), then the `--root` they gave (absolute) carried over,
 * then `args`, then any `paths` (project paths) after `--` (a path may start with a dash), written from
 * `folder` where given; every word shell-quoted.
 */
export function cliCommand(
  command: string,
  options: {
    root?: string | undefined;
    args?: readonly string[];
    paths?: readonly string[];
    folder?: CommandFolder | undefined;
  } = {},
): string {
  const { folder } = options;
  // The CLI takes a path from the current folder: one written from the root would be taken from there.
  const fromHere = (file: string) =>
    folder === undefined || folder.cwd === folder.projectRoot
      ? file
      : path.relative(folder.cwd, path.join(folder.projectRoot, file)) || '.';
  const words = [
    ...(options.root === undefined ? [] : ['--root', options.root]),
    ...(options.args ?? []),
    // A name that is not valid UTF-8 as git quotes it, the form the CLI takes it back in (an argument's
    // raw bytes would reach it as U+FFFD).
    ...(options.paths && options.paths.length > 0
      ? ['--', ...options.paths.map(fromHere).map((file) => (hasRawBytes(file) ? quotePath(file) : file))]
      : []),
  ];
  return [`claude-checkpoint ${command}`, ...words.map(shellWord)].join(' ');
}

/**
 * An agent's own command (`claude --resume <id>`) as printed by a CLI command given `--root`: run in that
 * folder, as the agent finds a project's sessions by the folder it starts in.
 */
export function inFolder(command: string, root: string | undefined): string {
  return root === undefined ? command : `cd ${shellWord(root)} && ${command}`;
}

/**
 * The CLI's words; `root`: the `--root` the running command was given, which every command it prints
 * carries; `folder`: where it runs, which the paths of those commands are written relative to.
 */
function cliWords(root?: string, folder?: CommandFolder): SurfaceWords {
  const command = (name: string, args: readonly string[] = [], paths: readonly string[] = []) =>
    cliCommand(name, { root, args, paths, folder });
  return {
    saveCheckpoint: `\`${command('save')}\``,
    takeSnapshot: `\`${command('snapshot')}\``,
    // The command itself: "the same command with --yes" was wrong after `--dry-run --yes` (issue 26).
    applyRestore: (id, paths) => `Apply it with: ${command('restore', [id, '--yes'], paths)}`,
    projectRoot: '--root',
    listSnapshots: `\`${command('list')}\``,
    listMore: (total) => `\`${command('list', ['--limit', String(total)])}\``,
    restore: (id) => `\`${command('restore', [id])}\``,
    loadFull: `\`${command('load', ['--format', 'full'])}\``,
    restoreNow: (id, paths = []) => command('restore', [id, '--yes'], paths),
    applyPull: (name, remote, checkout) =>
      `Apply it with: ${command('handoff pull', [...(remote === undefined ? [] : ['--remote', remote]), '--name', name, ...(checkout ? ['--checkout'] : []), '--yes'])}`,
    pullCheckout:
      'pull again with --checkout on a clean tree: it checks that commit out first, from the handoff itself (no fetch needed), then applies the handoff',
    allowSecrets: 'pass --allow-secrets',
    skipPrePush: 'pass --no-verify to push without running it (as git push --no-verify)',
    replaceHandoff: 'pass --force to replace it',
    keepBySaving: 'save with --merge to keep them',
    otherRemote: 'pass another with --remote',
    handoffName: 'pass --name',
    handoffNameField: '--name',
    listHandoffs: `see the handoffs there with \`${command('handoff list')}\``,
    pullFirst: (name) => `run \`${command('handoff pull', ['--name', name])}\` first to continue from it`,
    trigger: '--trigger',
    restorePath: () => 'path',
    // Run on another machine or in a teammate's clone: this machine's --root means nothing there.
    continueHandoff: (name) =>
      `To continue elsewhere: ${cliCommand('handoff pull', { args: ['--name', name] })}`,
    removeDamaged: `\`${command('gc')}\` removes such snapshots`,
    fixSetting: `Fix it, or see every setting with \`${command('doctor')}\``,
    compareSnapshots: (from, to) =>
      `to compare two snapshots, run \`${command('diff', [from, '--against', to])}\``,
    restoreOther: (id) =>
      `restore takes one snapshot; to restore that one, run \`${command('restore', [id])}\``,
  };
}

let cliDefault: SurfaceWords | undefined;

export const WORDS: Readonly<Record<Surface, SurfaceWords>> = {
  // Made when first read: every command's start loads this module (its settings), and building the
  // CLI's words quotes a dozen commands, in code not yet compiled (about 0.3 ms, twice for `status`).
  get cli() {
    cliDefault ??= cliWords();
    return cliDefault;
  },
  mcp: {
    saveCheckpoint: 'save_session_checkpoint',
    takeSnapshot: 'snapshot_files',
    applyRestore: () => 'Run restore_snapshot again with dryRun: false to apply it.',
    projectRoot: 'projectRoot',
    listSnapshots: 'list_snapshots',
    listMore: (total) => `list_snapshots with limit ${Math.min(total, 1000)}`,
    restore: () => 'restore_snapshot',
    loadFull: 'load with format "full"',
    applyPull: () => 'Run pull_handoff again with dryRun: false to apply it.',
    // Security: a path is a file's name, which may hold anything: as JSON, with no control character.
    restoreNow: (id, paths = []) =>
      `restore_snapshot with snapshotId "${id}"${paths.length > 0 ? `, paths ${escapeControls(JSON.stringify(paths))}` : ''} and dryRun: false`,
    // The tools never check out a commit nor push past the scan: those choices stay with a person
    // (see mcp/handoff-tools.ts).
    pullCheckout:
      'a person can pull with `claude-checkpoint handoff pull --checkout` on a clean tree, which checks that commit out first, from the handoff itself (no fetch needed)',
    allowSecrets: 'a person can push with `claude-checkpoint handoff push --allow-secrets`',
    // push_handoff never skips the project's pre-push hook: that choice stays with a person.
    skipPrePush: 'a person can push without running it with `claude-checkpoint handoff push --no-verify`',
    // push_handoff has no `force`: replacing someone else's handoff stays with a person.
    replaceHandoff: 'a person can replace it with `claude-checkpoint handoff push --force`',
    keepBySaving: 'save with mode "merge" to keep them',
    otherRemote: 'pass another remote as remote',
    handoffName: 'pass name',
    handoffNameField: 'name',
    // No tool lists handoffs: that stays with a person.
    listHandoffs: 'a person can see the handoffs there with `claude-checkpoint handoff list`',
    pullFirst: () => 'call pull_handoff first to continue from it',
    trigger: 'trigger',
    restorePath: (index) => `paths.${index}`,
    continueHandoff: (name) =>
      `To continue elsewhere: pull_handoff with name ${escapeControls(JSON.stringify(name))}`,
    // No tool runs gc nor shows the settings: those are a person's (the server's own folder may not be
    // the project's, so no --root is guessed).
    removeDamaged: 'a person can remove such snapshots with `claude-checkpoint gc`',
    fixSetting: 'Fix it; a person can see every setting with `claude-checkpoint doctor`',
    compareSnapshots: () => 'to compare two snapshots, pass the second as against',
    restoreOther: () => 'restore_snapshot takes one snapshot; to restore that one, pass it as snapshotId',
  },
};

/** A reader's surface, or words already made for it (the CLI's, carrying the command's `--root`). */
export type Reader = Surface | SurfaceWords;

/** The words of a reader. */
export function wordsOf(reader: Reader): SurfaceWords {
  return typeof reader === 'string' ? WORDS[reader] : reader;
}

/**
 * The words of `surface`; for the CLI, `root` is the `--root` the running command was given, if any, and
 * `folder` where it runs (see CommandFolder).
 */
export function wordsFor(surface: Surface, root?: string, folder?: CommandFolder): SurfaceWords {
  return surface === 'cli' && (root !== undefined || folder !== undefined)
    ? cliWords(root, folder)
    : WORDS[surface];
}

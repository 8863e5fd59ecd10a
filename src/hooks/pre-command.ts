import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AppDeps } from '../app/deps.js';
import { isGcDue, snapshotSettings, takeSnapshot } from '../app/rewind.js';
import { ROOT_ENV } from '../app/root.js';
import {
  type CommandTargets,
  type LeftOut,
  leftOutAtRisk,
  leftOutOf,
  renderLeftOutWarning,
} from '../core/left-out.js';
import { unchangedAtHead } from '../git/unchanged-at-head.js';
import { settingsOf } from '../store/settings-file.js';
import { startBackgroundGc } from './background.js';
import { type HookContext, type HookResult, hookProjectRoot } from './common.js';
import { type HookInput, stringField } from './input.js';
import { COMMAND_CWD, type PendingCommand, pendingCommandRisk, realOrSelf } from './pre-command-gate.js';

/** The trigger of a snapshot taken before a command that may destroy work. */
export const PRE_COMMAND_TRIGGER = 'pre-command';

/** The label of a snapshot before a command the hook could not read whole (its input was cut). */
export const UNREAD_COMMAND_LABEL =
  '(a command the hook could not read whole: its input was over 16 MB, or ended early)';

/**
 * A snapshot before a shell command (Bash or PowerShell) that may destroy work (issue 25), labelled with
 * the command (redacted, as every label is). Never blocks, denies or asks: a failure is a note on stderr
 * while the command runs anyway. Through the relay, the command runs as soon as the snapshot's content is
 * taken. The files over the size cap that the command names are in the snapshot all the same, up to
 * HELD_NAMED_MAX_BYTES (new-user trial 4: a 25 MB file was deleted for good, in silence). When the command
 * may destroy what the snapshot still leaves out (a file over that, a nested repository, a folder git
 * cannot read, anything a command on the whole tree reaches), it warns the person and the model.
 */
export async function preToolUse(input: HookInput, deps: AppDeps, context: HookContext): Promise<HookResult> {
  const risk = pendingCommandRisk(input, deps.cwd(), context.inputCut !== undefined);
  const label = risk.isCommandUnread ? UNREAD_COMMAND_LABEL : risk.command?.replace(/\s+/g, ' ');
  if (!risk.destructive || label === undefined) return { notes: [] };
  const atRiskIn = (leftOut: readonly LeftOut[], root: string) =>
    leftOutAtRisk(leftOut, commandTargetsIn(risk, root));
  const snapshot = (projectRoot: string | undefined, answerEarly?: () => void) => {
    // The early answer carries no output: it waits while something left out is at risk, to say so.
    let isHeld = false;
    return takeSnapshot(deps, {
      projectRoot,
      trigger: PRE_COMMAND_TRIGGER,
      label,
      sessionId: stringField(input, 'session_id', 'sessionId'),
      holdLarge: (large, root) => atRiskIn(large, root).named.map((entry) => entry.path),
      onContentLeftOut: answerEarly
        ? (skipped, root) => {
            const atRisk = atRiskIn(leftOutOf({ ...skipped }), root);
            isHeld = atRisk.named.length + atRisk.unnamed.length > 0;
          }
        : undefined,
      onContentTaken: answerEarly && (() => (isHeld ? undefined : answerEarly())),
    });
  };
  // A command the agent runs in another repository (a folder it named outside the project, or a
  // repository nested in it, which the project's snapshots leave out) gets that repository's snapshot
  // too, taken first: the command may start once the last one's content is taken.
  const projectRoot = hookProjectRoot(deps, input);
  const other = otherRepository(input, projectRoot ?? deps.env[ROOT_ENV]?.trim() ?? deps.cwd());
  const others = other ? [await snapshot(other)] : [];
  const outcome = await snapshot(projectRoot, context.answerEarly);
  for (const done of [...others, outcome])
    if (isGcDue(done) && context.cliPath) startBackgroundGc(context.cliPath, done.root.root, deps.env);
  const named: LeftOut[] = [];
  const unnamed: LeftOut[] = [];
  for (const done of [...others, outcome]) {
    const atRisk = await withoutUnchangedAtHead(
      atRiskIn(leftOutOf(done.snapshot.skipped), done.root.root),
      done.root.root,
    );
    const inRoot = (entry: LeftOut) => ({
      ...entry,
      path: inProject(done.root.root, outcome.root.root, entry.path),
    });
    named.push(...atRisk.named.map(inRoot));
    unnamed.push(...atRisk.unnamed.map(inRoot));
  }
  const warning = renderLeftOutWarning(
    { named, unnamed },
    snapshotSettings(settingsOf(deps, outcome.root.root)).maxFileBytes,
  );
  if (!warning) return { notes: [] };
  return { notes: [], context: warning.model, userMessage: warning.user };
}

/**
 * `atRisk` without the files over the size cap that the project's git holds unchanged at HEAD: `git
 * checkout -- <file>` brings those back, so they are not lost for good (a review of issue 26: `rm
 * asset.bin` of a committed file asked). The store's scan compares the tree with the latest snapshot,
 * not with the project's HEAD: one `git status` on those files tells, and only when one is at risk.
 */
async function withoutUnchangedAtHead(
  atRisk: { named: LeftOut[]; unnamed: LeftOut[] },
  root: string,
): Promise<{ named: LeftOut[]; unnamed: LeftOut[] }> {
  const large = [...atRisk.named, ...atRisk.unnamed].filter((entry) => entry.why === 'large');
  if (large.length === 0) return atRisk;
  const unchanged = await unchangedAtHead(
    root,
    large.map((entry) => entry.path),
  );
  const atRiskStill = (entry: LeftOut) => !(entry.why === 'large' && unchanged.has(entry.path));
  return { named: atRisk.named.filter(atRiskStill), unnamed: atRisk.unnamed.filter(atRiskStill) };
}

/** A path of another repository's snapshot as the session's project names it (relative to its root when inside). */
function inProject(root: string, projectRoot: string, file: string): string {
  if (root === projectRoot) return file;
  const relative = path.relative(projectRoot, path.join(root, file));
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)
    ? path.join(root, file)
    : relative.split(path.sep).join('/');
}

/**
 * What the command names, relative to `root` (null: outside it), by path and by the real path of its
 * folder (a session cwd through a symbolic link names the same files; a link itself is what `rm` removes,
 * not what it points to).
 */
function commandTargetsIn(risk: PendingCommand, root: string): CommandTargets {
  const roots = [...new Set([root, realOrSelf(root)])];
  const within = (absolute: string): string | null => {
    const real = path.join(realOrSelf(path.dirname(absolute)), path.basename(absolute));
    // The real path first: `rm lnk/r.bin` through a link to a folder of the project removes real/r.bin,
    // which is what the scan names (review A: the literal path was found inside, and nothing held).
    for (const target of new Set([real, absolute]))
      for (const base of roots) {
        const relative = path.relative(base, target);
        if (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative))
          return relative.split(path.sep).join('/');
      }
    return null;
  };
  const patterns = risk.targets?.patterns ?? [];
  return {
    paths: (risk.targets?.paths ?? []).map(within),
    patterns: patterns.filter((pattern): pattern is string => pattern !== null).map(within),
    reach: (risk.targets?.reach ?? []).map(within),
    // A target in a folder it cannot tell may be anything (a command it could not read names nothing).
    isAnywhere: patterns.includes(null),
  };
}

/**
 * The repository the command runs in (the nearest folder with a `.git` above the folder the agent named
 * for it), when that is not the session's project; `null` when the command runs in the project, or in a
 * folder of no repository outside it (never a snapshot of an arbitrary folder, which could be the home).
 */
function otherRepository(input: HookInput, sessionRoot: string): string | null {
  const commandCwd = stringField(input, COMMAND_CWD);
  if (!commandCwd) return null;
  const real = (file: string) => realOrSelf(path.resolve(file));
  const project = real(sessionRoot);
  for (let dir = real(commandCwd); ; ) {
    if (dir === project) return null;
    if (existsSync(path.join(dir, '.git'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

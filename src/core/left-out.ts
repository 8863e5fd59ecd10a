// What a snapshot left out although it was in the tree (a file over the size cap, a nested repository, a
// folder git could not read), said where it matters: before a command that may destroy it, and wherever
// a snapshot is listed, compared or restored (new-user trial 4 of 2026-12-07: a 25 MB file deleted right
// after its pre-command snapshot was gone for good, and `restore` said all was well). Pure.
import { code } from './brief.js';
import { quotePath } from './quote.js';
import {
  HELD_NAMED_MAX_BYTES,
  HELD_NAMED_TIME_LIMIT_MS,
  HELD_NAMED_TOTAL_MAX_BYTES,
  type SnapshotMeta,
} from './snapshot.js';

/** One path a snapshot left out, and why. */
export interface LeftOut {
  path: string;
  why: 'large' | 'nested' | 'unreadable';
  /** Its size, for a file over the size cap. */
  bytes?: number;
  /** Why git could not read it, for an unreadable folder. */
  reason?: string;
}

/** The paths a snapshot's `skipped` lists, as one list (names of earlier versions' invalidNames aside: snapshots hold those now). */
export function leftOutOf(skipped: SnapshotMeta['skipped'] | undefined): LeftOut[] {
  if (!skipped) return [];
  return [
    ...skipped.large.map((file) => ({ path: file.path, why: 'large' as const, bytes: file.bytes })),
    ...skipped.nested.map((dir) => ({ path: dir, why: 'nested' as const })),
    ...(skipped.unreadable ?? []).map((dir) => ({
      path: dir.path,
      why: 'unreadable' as const,
      reason: dir.reason,
    })),
  ];
}

/** Those of `leftOut` at or under one of `paths` (project-relative; empty: all of them). */
export function leftOutUnder(leftOut: readonly LeftOut[], paths: readonly string[]): LeftOut[] {
  if (paths.length === 0) return [...leftOut];
  return leftOut.filter((entry) =>
    paths.some(
      (given) =>
        entry.path === given || entry.path.startsWith(`${given}/`) || given.startsWith(`${entry.path}/`),
    ),
  );
}

/**
 * What a shell command names, as the pre-command gate read it: paths and patterns relative to the
 * project's root ('' for the root itself, `null` for one outside it); `isAnywhere` when one of its
 * targets lies in a folder that cannot be told (`cd "$X" && rm big.bin`).
 */
export interface CommandTargets {
  paths: ReadonlyArray<string | null>;
  patterns: ReadonlyArray<string | null>;
  /** Folders it may change something under without naming what (a find whose filters it cannot read). */
  reach?: ReadonlyArray<string | null> | undefined;
  isAnywhere: boolean;
}

/**
 * Which of `leftOut` a destructive command may destroy. `named`: it names them (the file, a folder holding
 * it, a glob matching it, a target in an unknown folder). `unnamed`: it names no path at all, as a command
 * on the whole tree (`git reset --hard`, `git clean -fdx`, a script piped into `sh`), so any of them may go.
 * A command that names paths none of which holds one of them leaves them alone: not said.
 */
export function leftOutAtRisk(
  leftOut: readonly LeftOut[],
  targets: CommandTargets,
): { named: LeftOut[]; unnamed: LeftOut[] } {
  const paths = targets.paths.filter((target): target is string => target !== null);
  const patterns = targets.patterns.filter((target): target is string => target !== null);
  const reach = (targets.reach ?? []).filter((target): target is string => target !== null);
  if (!targets.isAnywhere && paths.length === 0 && patterns.length === 0 && reach.length === 0)
    return targets.paths.length + targets.patterns.length + (targets.reach?.length ?? 0) === 0
      ? { named: [], unnamed: [...leftOut] }
      : { named: [], unnamed: [] };
  if (targets.isAnywhere) return { named: [...leftOut], unnamed: [] };
  const matchers = patterns.map(globMatcher);
  const named = leftOut.filter((entry) => {
    // A glob matches the file, or a folder above it (`rm -rf data/*`).
    const ancestors = entry.path.split('/').map((_, index, parts) => parts.slice(0, index + 1).join('/'));
    return (
      paths.some((target) => covers(entry, target)) || matchers.some((matches) => ancestors.some(matches))
    );
  });
  // Under a folder it may reach without naming what (a review of issue 26): warned about, not asked.
  const unnamed = leftOut.filter(
    (entry) => !named.includes(entry) && reach.some((target) => covers(entry, target)),
  );
  return { named, unnamed };
}

/** Whether `target` (a project-relative path, '' for the root) is the entry, a folder holding it, or in it. */
function covers(entry: LeftOut, target: string): boolean {
  // A long unreadable folder's name is clipped in the middle (`dddd…dddd`): what comes before the cut.
  const cut = entry.path.indexOf('…');
  const head = cut < 0 ? null : entry.path.slice(0, cut);
  return (
    target === '' ||
    (head === null
      ? entry.path === target || entry.path.startsWith(`${target}/`) || target.startsWith(`${entry.path}/`)
      : head.startsWith(`${target}/`) || target.startsWith(head))
  );
}

/** A shell glob as a test of project-relative paths: `*` and `?` within a name, `**` across folders, `[…]`, `{a,b}`; `$VAR` as anything. */
function globMatcher(pattern: string): (candidate: string) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (pattern.startsWith('**/', i)) {
      // `**/`: any folders, none included.
      source += '(?:.*/)?';
      i += 2;
    } else if (pattern.startsWith('**', i)) {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '$' || char === '~') {
      // A variable (or a quoted `~`) may stand for anything, folders included.
      source += '.*';
      const name = /^\$(?:\{[^}]*\}|\w+)/.exec(pattern.slice(i));
      if (name) i += name[0].length - 1;
    } else if (char === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) source += '\\[';
      else {
        source += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else if (char === '{') {
      const end = pattern.indexOf('}', i);
      if (end < 0) source += '\\{';
      else {
        source += `(?:${pattern
          .slice(i + 1, end)
          .split(',')
          .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
          .join('|')})`;
        i = end;
      }
    } else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  try {
    const regex = new RegExp(`^${source}$`);
    return (candidate) => regex.test(candidate);
  } catch {
    return () => true;
  }
}

/** A size over a cap, rounded up to two decimals, so a file just over 20 MB never reads "20 MB". */
function sizeOf(bytes: number): string {
  const units = ['KB', 'MB', 'GB', 'TB'];
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${(Math.ceil(value * 100) / 100).toFixed(2)} ${units[unit]}`;
}

/** The cap in MB as a setting takes it. */
function capOf(maxFileBytes: number): string {
  const mb = maxFileBytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : Number(mb.toFixed(2))} MB`;
}

/** One entry, as said to a person: `big.bin` (23.84 MB, over the size cap). */
export function describeLeftOut(entry: LeftOut, maxFileBytes?: number): string {
  const name = code(quotePath(entry.path));
  switch (entry.why) {
    case 'large':
      return `${name} (${sizeOf(entry.bytes ?? 0)}, over the ${maxFileBytes === undefined ? 'size cap' : `${capOf(maxFileBytes)} size cap`})`;
    case 'nested':
      return `${name} (a nested repository: it has its own history)`;
    default:
      return `${name} (a folder git could not read${entry.reason ? `: ${entry.reason}` : ''})`;
  }
}

/** The entries, a few named and the rest counted: hundreds would bury the message. */
function listOf(entries: readonly LeftOut[], maxFileBytes?: number, max = 5): string {
  const shown = entries.slice(0, max).map((entry) => describeLeftOut(entry, maxFileBytes));
  return `${shown.join(', ')}${entries.length > max ? `, and ${entries.length - max} more` : ''}`;
}

/** How to keep what a snapshot cannot hold, by kind. */
function keepAdvice(entries: readonly LeftOut[], maxFileBytes: number): string {
  const advice: string[] = [];
  if (entries.some((entry) => entry.why === 'large'))
    advice.push(
      `copy the file somewhere safe first, or raise the cap above its size (\`snapshotMaxFileMb\` in the settings file, or CHECKPOINT_SNAPSHOT_MAX_FILE_MB; now ${capOf(maxFileBytes)}) so the next snapshot holds it`,
    );
  if (entries.some((entry) => entry.why === 'nested'))
    advice.push('commit in the nested repository, or copy it, first');
  if (entries.some((entry) => entry.why === 'unreadable'))
    advice.push('copy the folder git cannot read first');
  return advice.join('; ');
}

/**
 * Why a named file over the size cap was not held although it is within HELD_NAMED_MAX_BYTES: the files
 * one snapshot holds come to at most a total, copied within a time limit (review A of 2026-12-07: the
 * warning gave only the size cap as the reason). Empty when none is such a file.
 */
function notHeldWhy(named: readonly LeftOut[]): string {
  const couldBeHeld = named.some(
    (entry) => entry.why === 'large' && (entry.bytes ?? 0) <= HELD_NAMED_MAX_BYTES,
  );
  return couldBeHeld
    ? ` The snapshot keeps the files a command names over the cap up to ${capOf(HELD_NAMED_TOTAL_MAX_BYTES)} in all, copied within ${HELD_NAMED_TIME_LIMIT_MS / 1000} s, and each up to ${capOf(HELD_NAMED_MAX_BYTES)}: these did not fit.`
    : '';
}

/** What the pre-command hook says when the command may destroy what its snapshot left out. */
export interface LeftOutWarning {
  /** For the person, shown by the agent (Claude Code's `systemMessage`). */
  user: string;
  /** For the model, before the command runs (`additionalContext`). */
  model: string;
}

/**
 * The warning for `atRisk` (see leftOutAtRisk), or null when nothing left out is at risk. A warning only:
 * the pre-command hook never stops a command. Its snapshot holds the files the command names up to
 * HELD_NAMED_MAX_BYTES (see snapshot.ts), so what is named here is what it still cannot hold.
 */
export function renderLeftOutWarning(
  atRisk: { named: readonly LeftOut[]; unnamed: readonly LeftOut[] },
  maxFileBytes: number,
): LeftOutWarning | null {
  const entries = atRisk.named.length > 0 ? atRisk.named : atRisk.unnamed;
  if (entries.length === 0) return null;
  const list = listOf(entries, maxFileBytes);
  const advice = keepAdvice(entries, maxFileBytes);
  if (atRisk.named.length > 0) {
    const why = notHeldWhy(atRisk.named);
    return {
      user: `⚠ claude-checkpoint: the snapshot taken before this command does not hold ${list}: if the command deletes or overwrites it, no rewind can bring it back.${why} To keep it, ${advice}.`,
      model: `The pre-command snapshot does not hold ${list}, which this command names: if it deletes or overwrites it, it is lost for good (no rewind brings it back).${why} Unless the user asked for exactly that, keep a copy first or ask the user. To keep it, ${advice}.`,
    };
  }
  return {
    user: `⚠ claude-checkpoint: the snapshot taken before this command does not hold ${list}: whatever the command changes there, no rewind can bring back. To keep it, ${advice}.`,
    model: `The pre-command snapshot does not hold ${list}: what this command changes there cannot be rewound. To keep it, ${advice}.`,
  };
}

import { LIMITS } from './limits.js';
import { type Checkpoint, type ModifiedFile, type RecentCommand, serializeCheckpoint } from './schema.js';
import { hasUnknownFields, withoutUnknownFields } from './unknown-fields.js';

// Fitting a checkpoint to its 64 KB cap, and appending commands already recorded: what merging the
// command journal needs (core/journal.ts), apart from building a save (merge.ts), which redacts: a
// process that only merges the journal (`status`, a load) loads no secret detector (issue 26).

/** What the agent gave in the save being fitted: kept before anything else (see fitToSize). */
export interface GivenInSave {
  /** How many of the newest commands this save brought. */
  commandCount: number;
  /** The paths the agent named in this save. */
  filePaths: ReadonlySet<string>;
}

/** What fitToSize dropped to fit the cap, by kind. */
export interface DroppedToFit {
  /** Entries only a git scan found (no note, not named by the agent): their oids are kept elsewhere. */
  scannedFiles: number;
  commands: number;
  /** Files the agent named or noted (this save's last of all). */
  notedFiles: number;
  flaggedPaths: number;
  unknownFields: boolean;
}

const NOTHING_GIVEN: GivenInSave = { commandCount: 0, filePaths: new Set() };

/** Nothing dropped. */
export const NOTHING_DROPPED: DroppedToFit = {
  scannedFiles: 0,
  commands: 0,
  notedFiles: 0,
  flaggedPaths: 0,
  unknownFields: false,
};

/**
 * The save's warning about what it dropped, saying truly what went (issue 26: "older entries" was said
 * when the save's own commands had gone); `null` when nothing did.
 */
export function describeDropped(dropped: DroppedToFit, isListCut: boolean): string | null {
  const parts = [
    dropped.scannedFiles > 0 &&
      `${dropped.scannedFiles} file entr${dropped.scannedFiles === 1 ? 'y' : 'ies'} found only by git's scan (their hashes are kept in the private store, so drift still follows them)`,
    dropped.commands > 0 && `${dropped.commands} command(s), oldest first`,
    dropped.notedFiles > 0 &&
      `${dropped.notedFiles} file entr${dropped.notedFiles === 1 ? 'y' : 'ies'} with notes or named by the agent`,
    dropped.flaggedPaths > 0 && `${dropped.flaggedPaths} flagged path(s)`,
    dropped.unknownFields && 'the fields this version does not know',
  ].filter((part): part is string => typeof part === 'string');
  const sentences = [
    isListCut &&
      `Older entries were dropped to keep the list limits (the last ${LIMITS.recentCommands} commands, ${LIMITS.decisions} decisions, ${LIMITS.tasks} tasks).`,
    parts.length > 0 &&
      `Dropped to fit the 64 KB cap: ${parts.join('; ')}; the checkpoint is marked as cut short.`,
  ].filter((part): part is string => typeof part === 'string');
  return sentences.length > 0 ? sentences.join(' ') : null;
}

/** Adds up two fits of the same save (a save's, then the transcript's). */
export function addDropped(a: DroppedToFit, b: DroppedToFit): DroppedToFit {
  return {
    scannedFiles: a.scannedFiles + b.scannedFiles,
    commands: a.commands + b.commands,
    notedFiles: a.notedFiles + b.notedFiles,
    flaggedPaths: a.flaggedPaths + b.flaggedPaths,
    unknownFields: a.unknownFields || b.unknownFields,
  };
}

/**
 * Drops entries until the serialized checkpoint fits in `maxBytes`, least useful first (issue 26: a
 * 3,000-file tree once pushed out the very commands of the save): fields this version does not know;
 * file entries only a git scan found (their oids are kept in the store's `unlisted-files.json`, so
 * drift still follows them), from the end; older commands, oldest first; the other files not given in
 * this save, from the end; flagged paths; then this save's own commands, oldest first, and its files
 * last. Each step searches for how many to drop (dropping more never makes the file bigger), so a full
 * file costs a few serializations, not one per entry; the last one is the text written.
 */
export function fitToSize(
  checkpoint: Checkpoint,
  maxBytes: number,
  given: GivenInSave = NOTHING_GIVEN,
): FittedCheckpoint & { dropped: DroppedToFit } {
  const whole = measure(checkpoint);
  if (whole.bytes <= maxBytes) return { ...whole, dropped: NOTHING_DROPPED };
  const truncate = (c: Checkpoint): Checkpoint => ({ ...c, meta: { ...c.meta, truncated: true } });
  // Fields this version does not know go first: a newer writer's (or a hand edit's) extras never push
  // out the session's own commands and files (review of 2026-12-06: a 60 KB unknown field took them all).
  if (hasUnknownFields(checkpoint)) {
    const fitted = fitToSize(truncate(withoutUnknownFields(checkpoint)), maxBytes, given);
    return { ...fitted, dropped: { ...fitted.dropped, unknownFields: true } };
  }
  const dropped = { ...NOTHING_DROPPED };
  const isGiven = (file: ModifiedFile) => given.filePaths.has(file.path);
  const isScanned = (file: ModifiedFile) =>
    file.source === 'git' && file.note === undefined && !isGiven(file);
  let current = whole;
  /** Drops up to all of the files `droppable` picks, from the end of the list. */
  const dropFiles = (droppable: (file: ModifiedFile) => boolean): number => {
    const base = current.checkpoint;
    const files = base.modifiedFiles;
    const candidates = files.flatMap((file, index) => (droppable(file) ? [index] : []));
    if (current.bytes <= maxBytes || candidates.length === 0) return 0;
    current = fewestDropped(candidates.length, maxBytes, current, (n) => {
      const gone = new Set(candidates.slice(candidates.length - n));
      return truncate({ ...base, modifiedFiles: files.filter((_, index) => !gone.has(index)) });
    });
    return files.length - current.checkpoint.modifiedFiles.length;
  };
  /** Drops up to `max` of the oldest commands. */
  const dropCommands = (max: number): number => {
    const base = current.checkpoint;
    const commands = base.recentCommands;
    if (current.bytes <= maxBytes || max <= 0) return 0;
    current = fewestDropped(max, maxBytes, current, (n) =>
      truncate({ ...base, recentCommands: commands.slice(n) }),
    );
    return commands.length - current.checkpoint.recentCommands.length;
  };
  const givenCommands = () => Math.min(given.commandCount, current.checkpoint.recentCommands.length);

  dropped.scannedFiles += dropFiles(isScanned);
  dropped.commands += dropCommands(current.checkpoint.recentCommands.length - givenCommands());
  dropped.notedFiles += dropFiles((file) => !isGiven(file));
  const flagged = current.checkpoint.meta.flagged;
  if (current.bytes > maxBytes && flagged && flagged.paths.length > 0) {
    const base = current.checkpoint;
    current = fewestDropped(flagged.paths.length, maxBytes, current, (count) =>
      truncate({
        ...base,
        meta: {
          ...base.meta,
          flagged: { ...flagged, paths: flagged.paths.slice(0, flagged.paths.length - count) },
        },
      }),
    );
    dropped.flaggedPaths = flagged.paths.length - (current.checkpoint.meta.flagged?.paths.length ?? 0);
  }
  dropped.commands += dropCommands(current.checkpoint.recentCommands.length);
  dropped.notedFiles += dropFiles(() => true);
  return { ...current, dropped };
}

export interface FittedCheckpoint {
  checkpoint: Checkpoint;
  bytes: number;
  serialized: string;
}

function measure(checkpoint: Checkpoint): FittedCheckpoint {
  const serialized = serializeCheckpoint(checkpoint);
  return { checkpoint, bytes: Buffer.byteLength(serialized), serialized };
}

/**
 * The smallest count in [1, max] whose `build(count)` fits (or `build(max)` when none does), measured.
 * The size falls about linearly with the count, so each probe is interpolated between the nearest known
 * sizes: a full checkpoint costs a few serializations, where bisection took ten or more.
 */
function fewestDropped(
  max: number,
  maxBytes: number,
  noneDropped: FittedCheckpoint,
  build: (count: number) => Checkpoint,
): FittedCheckpoint {
  if (max === 0) return noneDropped;
  let best = measure(build(max));
  if (best.bytes > maxBytes || max <= 1) return best;
  let low = 0; // build(low) does not fit
  let lowBytes = noneDropped.bytes;
  let high = max; // build(high) fits
  for (let probe = 0; high - low > 1; probe++) {
    // Interpolate while it converges; bisect after a few probes, so the worst case stays logarithmic.
    const perStep = (lowBytes - best.bytes) / (high - low);
    const guess =
      probe < 3 && perStep > 0 ? low + Math.ceil((lowBytes - maxBytes) / perStep) : (low + high) / 2;
    const middle = Math.min(high - 1, Math.max(low + 1, Math.floor(guess)));
    const candidate = measure(build(middle));
    if (candidate.bytes <= maxBytes) {
      high = middle;
      best = candidate;
    } else {
      low = middle;
      lowBytes = candidate.bytes;
    }
  }
  return best;
}

/** Appends already recorded (redacted) commands: keeps the last 50, counts the redactions, fits the cap. */
export function appendRecorded(
  checkpoint: Checkpoint,
  commands: readonly RecentCommand[],
  redactions: number,
  meta: Partial<Checkpoint['meta']> = {},
): FittedCheckpoint & { dropped: DroppedToFit; isListCut: boolean } {
  const newest = keepNewest([...checkpoint.recentCommands, ...commands], LIMITS.recentCommands);
  const next: Checkpoint = {
    ...checkpoint,
    recentCommands: newest.kept,
    meta: {
      ...checkpoint.meta,
      ...meta,
      redactions: checkpoint.meta.redactions + redactions,
      truncated: checkpoint.meta.truncated || newest.dropped,
    },
  };
  const fitted = fitToSize(next, LIMITS.fileBytes, { commandCount: commands.length, filePaths: new Set() });
  return { ...fitted, isListCut: newest.dropped };
}

/** The newest `max` of a list kept oldest first, and whether any were dropped (the checkpoint says so). */
export function keepNewest<T>(items: readonly T[], max: number): { kept: T[]; dropped: boolean } {
  return items.length > max
    ? { kept: items.slice(-max), dropped: true }
    : { kept: [...items], dropped: false };
}

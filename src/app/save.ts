import { lstatSync } from 'node:fs';
import path from 'node:path';
import { carryFlags } from '../core/drift.js';
import { CheckpointError, isCheckpointError, thenSentence } from '../core/errors.js';
import type { FieldNamer, SaveInput } from '../core/input.js';
import { addDropped, buildCheckpoint, describeDropped, pathsToHash, repeatedTasks } from '../core/merge.js';
import { describeOverLimits, fieldsOverLimits } from '../core/over-limits.js';
import { CHECKPOINT_FILE } from '../core/paths.js';
import { escapeControls } from '../core/quote.js';
import { fsPath } from '../core/raw-path.js';
import { redactPath, redactText } from '../core/redact.js';
import type { Checkpoint, FlaggedFiles, GitInfo } from '../core/schema.js';
import { wordsFor } from '../core/surface.js';
import { cutChars } from '../core/text.js';
import { applyTranscript, type TranscriptRecord } from '../core/transcript.js';
import { isIgnoredByGitRemembered } from '../git/ignore-check.js';
import { WorktreeHasher } from '../git/oid.js';
import { isReadable, locateRepo, readRepoStateOrReason } from '../git/repo.js';
import { readBaseline, writeBaseline } from '../store/baseline-store.js';
import { CheckpointStore, isNotUtf8Notice, isOverLimitNotice } from '../store/checkpoint-store.js';
import { readOidMemory, sameMemory, writeOidMemory } from '../store/oid-memory.js';
import { defaultStoreBase, projectOurFolders, projectStoreDir } from '../store/store-location.js';
import { GENERATOR } from '../version.js';
import type { AppDeps } from './deps.js';
import { detectDrift } from './drift.js';
import { projectPathOf, rootRelativeHint, savedPathProblem } from './given-path.js';
import { loadRedactionConfig } from './redaction.js';
import { type ResolvedRoot, refuseNonProjectRoot, resolveProjectRoot } from './root.js';

export interface SaveOutcome {
  path: string;
  bytes: number;
  mode: 'replace' | 'merge';
  counts: { tasks: number; modifiedFiles: number; recentCommands: number; redactions: number };
  warnings: string[];
  git: { branch: string | null; head: string } | null;
  root: ResolvedRoot;
}

export interface RootContext {
  clientRoots?: () => Promise<readonly string[]>;
}

/**
 * Validates, merges, redacts, caps and writes a checkpoint; nothing touches disk if anything is invalid.
 * `automatic` marks a refresh by a hook rather than the agent: it keeps what the agent has not seen flagged.
 * `transcript` fills what the agent left empty from its session transcript (see applyTranscript).
 */
export async function saveCheckpoint(
  deps: AppDeps,
  input: SaveInput,
  context: RootContext = {},
  options: {
    automatic?: boolean;
    transcript?: TranscriptRecord | undefined;
    /** Wait at most this long for the lock in all (a hook's budget), else LOCKED. */
    lockWaitMs?: number | undefined;
    /** Names the input's fields in errors, as the caller got them (the CLI's flags); JSON paths by default. */
    nameField?: FieldNamer | undefined;
    /**
     * The folder the files' relative paths are taken from: the CLI's current folder for `--file`, as a
     * person types paths; the root when absent (the tool's paths and `--stdin`'s JSON: see toProjectPath).
     */
    pathsFrom?: string | undefined;
    /** Journal ids of the recorded commands this save holds (record-commands.ts): never merged again. */
    journaled?: readonly string[] | undefined;
    /**
     * An automatic save's files that the agent's own edit tools wrote (its transcript says so): listed as
     * touched, never flagged as changed by someone else after the agent's save (trial 4 of issue 26).
     */
    agentWrote?: readonly string[] | undefined;
  } = {},
): Promise<SaveOutcome> {
  const resolved = await resolveProjectRoot({
    argument: input.projectRoot,
    env: deps.env,
    clientRoots: context.clientRoots,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  });
  // A trial: a save wrote /.claude-checkpoint where snapshots refuse the root.
  refuseNonProjectRoot(resolved, deps.env, deps.surface, {
    home: false,
    action: 'write a checkpoint in',
    argumentLabel: deps.rootArgument,
    isHook: deps.isHook,
  });
  const { root } = resolved;
  const pathField = (index: number) =>
    options.nameField?.(['modifiedFiles', index, 'path']) ?? `modifiedFiles.${index}.path`;
  const isAutomatic = options.automatic === true;
  // Loaded before the paths are judged: what this save says of a path is redacted as the file keeps it,
  // its warnings and refusals reaching the model too (review: a token in a file's name was repeated).
  const redactionLoading = loadRedactionConfig(deps.fs, deps.env, root);
  const { config: redactionConfig } = await redactionLoading;
  const shown = (file: string) => `'${escapeControls(redactPath(file, redactionConfig).text)}'`;
  // A hook's automatic save leaves out a path no save can take (a name past 255 bytes, a NUL, outside
  // the project) rather than fail: its list comes from the transcript, and the save must go through.
  const given = input.modifiedFiles?.flatMap((file, index) => {
    try {
      return [{ ...file, path: projectPathOf(root, file.path, pathField(index), options.pathsFrom, shown) }];
    } catch (error) {
      if (isAutomatic && isCheckpointError(error)) return [];
      throw error;
    }
  });
  const warnings: string[] = [];
  const normalized: SaveInput = {
    ...input,
    modifiedFiles: given && (await withListableFiles(root, given, deps.env, pathField, isAutomatic, shown)),
  };
  if (!isAutomatic) warnings.push(...repeatedFileWarnings(normalized.modifiedFiles ?? [], pathField, shown));
  const taskField = (index: number) => options.nameField?.(['tasks', index]) ?? `tasks.${index}`;
  const shownText = (text: string) =>
    `'${escapeControls(cutChars(redactText(text, redactionConfig).text, 80))}'`;
  if (!isAutomatic) warnings.push(...repeatedTaskWarnings(input.tasks ?? [], taskField, shownText));
  const mode = input.mode ?? 'replace';
  const store = new CheckpointStore(root, deps.fs);
  const lockOptions = options.lockWaitMs === undefined ? {} : { waitMs: options.lockWaitMs };

  return deps.queue.run(root, () =>
    store.withLock(async () => {
      // git starts first (its processes side by side); the rest of the work overlaps with its scan.
      const location = await locateRepo(root);
      const reading = location
        ? readRepoStateOrReason(root, location, undefined, projectOurFolders(root, deps.env))
        : Promise.resolve(null);
      const asking = location ? isIgnoredByGitRemembered(root, CHECKPOINT_FILE).catch(() => null) : null;
      const storeDir = projectStoreDir(defaultStoreBase(deps.env), root);
      const format = location?.objectFormat ?? 'sha1';
      const memoryReading = location ? readOidMemory(storeDir, format) : Promise.resolve(new Map());
      const previous = mode === 'merge' ? await readForMerge(store, warnings) : null;
      // While git scans, hash what is likely still dirty: the files named now and those the last save listed.
      const memory = await memoryReading;
      const hasher = new WorktreeHasher(root, format, memory);
      const likely =
        previous ??
        (await store
          .load()
          .catch(() => null)
          .then((loaded) => (loaded?.found ? loaded.checkpoint : null)));
      // The files a full checkpoint could not list are in the store's baseline: likely dirty too.
      const unlisted = likely ? await readBaseline(storeDir, likely) : null;
      const early = await hasher.oids([
        ...pathsToHash({ ...normalized, mode: 'merge' }, likely, []),
        ...Object.keys(unlisted?.oids ?? {}),
      ]);
      const [reply, ignored, redaction] = await Promise.all([reading, asking, redactionLoading]);
      warnings.push(...redaction.problems);
      const repo = isReadable(reply) ? reply : null;
      // Issue 26: a repository git cannot read (git missing from PATH, a bad config line) was saved
      // without git facts, and not a word said.
      if (reply && !isReadable(reply))
        warnings.push(
          `No git facts saved (branch, HEAD, uncommitted files): ${reply.unreadable}, so drift cannot be checked against this save`,
        );
      if (repo?.invalidNames)
        warnings.push(
          `${repo.invalidNames.length} file(s) whose name is not valid UTF-8 (git shows ${repo.invalidNames.join(', ')}) are not listed: a checkpoint is text, so drift cannot follow their content (snapshots do hold them, byte for byte); rename them to have them followed`,
        );
      const git: GitInfo | null = repo?.head
        ? {
            branch: repo.branch,
            head: repo.head,
            dirty: repo.entries.length > 0 || repo.invalidNames !== undefined,
          }
        : null;
      const detectedFiles = (repo?.entries ?? []).map(({ path: file, status }) => ({ path: file, status }));
      const needed = pathsToHash(normalized, previous, detectedFiles);
      const rest = needed.filter((file) => !early.has(file));
      const [oids, flagged] = await Promise.all([
        hasher
          .oids(rest)
          .then((late) => new Map(needed.map((file) => [file, early.get(file) ?? late.get(file) ?? null]))),
        options.automatic && previous
          ? detectDrift(root, previous, [], deps.env, { location, repo: reply, memory }).then((drift) =>
              withoutPaths(carryFlags(previous, drift), options.agentWrote),
            )
          : undefined,
      ]);
      // A submodule or nested repository the agent named, which git does not report changed, has no hash
      // of ours, and is no deleted file: listed as the agent gave it (review).
      for (const file of normalized.modifiedFiles ?? [])
        if (oids.get(file.path) === null && isFolder(path.join(root, file.path))) oids.delete(file.path);
      if (!options.automatic) {
        const missing = missingFiles(normalized, oids, detectedFiles);
        // Not there, unknown to git, and there from the root: typed from a subfolder as from the root (as
        // the CLI took paths before 2026-12-07). Refused, not noted as a deleted file; a file deleted from
        // the current folder, which git reports, is taken as it is (review).
        for (const index of missing) {
          const typed = input.modifiedFiles?.[index]?.path ?? '';
          const hint = rootRelativeHint(root, typed, options.pathsFrom, shown);
          if (hint !== '')
            throw new CheckpointError(
              'INVALID_INPUT',
              `${pathField(index)}: there is no ${shown(typed)} in the current folder ${escapeControls(options.pathsFrom ?? '')}${hint}`,
            );
        }
        warnings.push(
          ...missing.map(
            (index) =>
              `${pathField(index)}: ${shown(normalized.modifiedFiles?.[index]?.path ?? '')}${takenFrom(input.modifiedFiles?.[index]?.path, normalized.modifiedFiles?.[index]?.path ?? '', options.pathsFrom, shown)} does not exist; recorded as deleted`,
          ),
        );
      }

      let built = buildCheckpoint({
        input: { ...normalized, mode },
        previous,
        onDisk: likely,
        git,
        detectedFiles,
        oids,
        now: deps.now(),
        newId: deps.newId,
        generator: GENERATOR,
        projectName: path.basename(root),
        flagged,
        redaction: redaction.config,
        isAutomatic: options.automatic === true,
        journaled: options.journaled,
      });
      if (options.transcript) {
        const filled = applyTranscript(built.checkpoint, options.transcript, {
          now: deps.now(),
          redaction: redaction.config,
        });
        built = {
          ...filled,
          redactions: built.redactions + filled.redactions,
          dropped: addDropped(built.dropped, filled.dropped),
          isListCut: built.isListCut || filled.isListCut,
        };
      }
      const { checkpoint } = built;
      // The store's two files are written beside the checkpoint: each is tied to it (the baseline by the
      // checkpoint's id and time) or only a cache (the memory), so a failed save leaves nothing misleading.
      // All three finish before the lock is let go.
      const [written] = await Promise.allSettled([
        store.writeLocked(built.serialized, checkpoint),
        checkpoint.meta.truncated ? keepUnlistedOids(deps, storeDir, checkpoint, oids, warnings) : null,
        // Remembered for the next save or load; losing this only costs hashing again.
        location && !sameMemory(memory, hasher.remembered)
          ? writeOidMemory(deps.fs, storeDir, format, hasher.remembered).catch(() => undefined)
          : null,
      ]);
      if (written.status === 'rejected') throw written.reason;
      if (written.value.keptDamaged) {
        warnings.push(
          `The unusable ${CHECKPOINT_FILE} this save replaced is kept as ${written.value.keptDamaged}: copy what you need from it, then delete it.`,
        );
      }
      if (written.value.keptOverLimits) {
        // The load's notice said what a save would do; this one did it, and says where the file went.
        const over = describeOverLimits(fieldsOverLimits(likely ?? checkpoint));
        warnings.splice(0, warnings.length, ...warnings.filter((warning) => !isOverLimitNotice(warning)));
        warnings.push(
          `${CHECKPOINT_FILE} held fields over their limits (a hand edit?): ${over}. This save cut them to their limits; the file as it was is kept as ${written.value.keptOverLimits}: copy what you need from it, then delete it.`,
        );
      }
      if (written.value.keptNotUtf8) {
        // As for fields over their limits: the load's notice said what a save would do; this one did it.
        warnings.splice(0, warnings.length, ...warnings.filter((warning) => !isNotUtf8Notice(warning)));
        warnings.push(
          `${CHECKPOINT_FILE} held bytes that are not UTF-8 (a hand edit in another encoding?), read as U+FFFD: the file as it was is kept as ${written.value.keptNotUtf8}: copy what you need from it, then delete it.`,
        );
      }
      if (written.value.keptDamagedBackup) {
        warnings.push(
          `The backup ${CHECKPOINT_FILE}.prev this save replaced was damaged or not all UTF-8; it is kept as it was, as ${written.value.keptDamagedBackup}: copy what you need from it, then delete it.`,
        );
      }
      if (built.redactions > 0) warnings.push(`Redacted ${built.redactions} secret-looking value(s).`);
      // Issue 26: a replace sets the commands to those given (the spec's `replace`), and dropped 36 a
      // hook had recorded without a word.
      const replacedCommands = mode === 'replace' ? droppedCommands(likely, checkpoint) : 0;
      if (replacedCommands > 0)
        warnings.push(
          `This save replaced the checkpoint: ${replacedCommands} command(s) recorded before it (by hooks or earlier saves) are no longer in it; ${wordsFor(deps.surface).keepBySaving}.`,
        );
      const dropped = describeDropped(built.dropped, built.isListCut);
      if (dropped) warnings.push(dropped);
      if (ignored === false) {
        warnings.push(
          `${CHECKPOINT_FILE} is not git-ignored: add ".claude-checkpoint*" to .gitignore (this tool never edits it).`,
        );
      }
      return {
        path: store.paths.main,
        bytes: built.bytes,
        mode,
        counts: countsOf(checkpoint, built.redactions),
        warnings,
        git: git ? { branch: git.branch, head: git.head } : null,
        root: resolved,
      };
    }, lockOptions),
  );
}

/** The checkpoint a merge builds on; an unusable one is reported and replaced rather than blocking work. */
async function readForMerge(store: CheckpointStore, warnings: string[]): Promise<Checkpoint | null> {
  try {
    const loaded = await store.load();
    if (!loaded.found) return null;
    warnings.push(...loaded.notices);
    return loaded.checkpoint;
  } catch (error) {
    if (isCheckpointError(error, 'CORRUPT')) {
      warnings.push(thenSentence(error.message, 'Merged into an empty checkpoint instead.'));
      return null;
    }
    throw error;
  }
}

/** How many of the commands `before` held a replace left out (one it was given again is not dropped). */
function droppedCommands(before: Checkpoint | null, after: Checkpoint): number {
  if (!before) return 0;
  const given = new Set(after.recentCommands.map((entry) => entry.command));
  return before.recentCommands.filter((entry) => !given.has(entry.command)).length;
}

function countsOf(checkpoint: Checkpoint, redactions: number): SaveOutcome['counts'] {
  return {
    tasks: checkpoint.goal.tasks.length,
    modifiedFiles: checkpoint.modifiedFiles.length,
    recentCommands: checkpoint.recentCommands.length,
    redactions,
  };
}

/** Files the 64 KB cap left out of the checkpoint: their oids go to the private store (see Baseline). */
async function keepUnlistedOids(
  deps: AppDeps,
  storeDir: string,
  checkpoint: Checkpoint,
  oids: ReadonlyMap<string, string | null>,
  warnings: string[],
): Promise<void> {
  const listed = new Set(checkpoint.modifiedFiles.map((file) => file.path));
  const unlisted = Object.fromEntries([...oids].filter(([file]) => !listed.has(file)));
  if (Object.keys(unlisted).length === 0) return;
  try {
    await writeBaseline(deps.fs, storeDir, {
      checkpointId: checkpoint.id,
      updatedAt: checkpoint.updatedAt,
      oids: unlisted,
    });
  } catch (error) {
    warnings.push(
      `Could not keep the hashes of the ${Object.keys(unlisted).length} file(s) the 64 KB cap left out (${(error as Error).message}); a load may flag them as changed.`,
    );
  }
}

/** Flagged files without those in `paths`; nothing flagged when none is left. */
function withoutPaths(flagged: FlaggedFiles | undefined, paths: readonly string[] | undefined) {
  if (!flagged || !paths?.length) return flagged;
  const own = new Set(paths);
  const left = flagged.paths.filter((file) => !own.has(file));
  return left.length > 0 ? { ...flagged, paths: left } : undefined;
}

type GivenFile = NonNullable<SaveInput['modifiedFiles']>[number];

/**
 * The files given that a checkpoint can list (see savedPathProblem); any other is refused, naming its
 * field. A hook's automatic save leaves such a file out instead: the agent never named it there.
 */
async function withListableFiles(
  root: string,
  files: readonly GivenFile[],
  env: NodeJS.ProcessEnv,
  pathField: (index: number) => string,
  isAutomatic: boolean,
  shown: (file: string) => string,
): Promise<GivenFile[]> {
  const ourFolders = projectOurFolders(root, env);
  const problems = await Promise.all(
    files.map((file) => savedPathProblem(root, file.path, ourFolders, shown)),
  );
  const refused = problems.findIndex((problem) => problem !== null);
  if (refused !== -1 && !isAutomatic)
    throw new CheckpointError('INVALID_INPUT', `${pathField(refused)}: ${problems[refused]}`);
  return files.filter((_, index) => problems[index] === null);
}

/** A file named twice keeps one entry, with the last note given: said, naming both fields. */
function repeatedFileWarnings(
  files: readonly GivenFile[],
  pathField: (index: number) => string,
  shown: (file: string) => string,
): string[] {
  const first = new Map<string, number>();
  const warnings: string[] = [];
  files.forEach((file, index) => {
    const earlier = first.get(file.path);
    if (earlier === undefined) first.set(file.path, index);
    else
      warnings.push(
        `${pathField(index)} names the same file as ${pathField(earlier)} (${shown(file.path)}): it is listed once, with the last note given`,
      );
  });
  return warnings;
}

/**
 * A task named twice (the same description) is kept once, where it was first given, with the last status
 * given: said, naming both fields, as for a file named twice.
 */
function repeatedTaskWarnings(
  tasks: NonNullable<SaveInput['tasks']>,
  taskField: (index: number) => string,
  shown: (text: string) => string,
): string[] {
  return repeatedTasks(tasks.map((task) => task.description.trim())).map(
    ({ index, first }) =>
      `${taskField(index)} names the same task as ${taskField(first)} (${shown(tasks[index]?.description.trim() ?? '')}): it is kept once, with the last status given (${tasks[index]?.status})`,
  );
}

/**
 * The indexes of the files named by the agent that are not there and that git does not report (deleted):
 * recorded as deleted, with a warning (an agent may note a file it removed, but a typo must not pass as
 * one in silence). A file named twice is counted once (review), at the first index that named it.
 */
function missingFiles(
  input: SaveInput,
  oids: ReadonlyMap<string, string | null>,
  detected: ReadonlyArray<{ path: string }>,
): number[] {
  const reported = new Set(detected.map((file) => file.path));
  const seen = new Set<string>();
  return (input.modifiedFiles ?? []).flatMap((file, index) => {
    if (oids.get(file.path) !== null || reported.has(file.path) || seen.has(file.path)) return [];
    seen.add(file.path);
    return [index];
  });
}

/**
 * What a path a person typed in another folder than the root was taken as, for a warning that it is not
 * there: ` (from './b.ts' in the current folder /p/src)`; nothing where it is listed as typed.
 */
function takenFrom(
  typed: string | undefined,
  file: string,
  from: string | undefined,
  shown: (file: string) => string,
): string {
  if (typed === undefined || from === undefined || typed === file || path.isAbsolute(typed)) return '';
  return ` (from ${shown(typed)} in the current folder ${escapeControls(from)})`;
}

function isFolder(file: string): boolean {
  try {
    return lstatSync(fsPath(file), { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false; // a file where a folder was named on the way (ENOTDIR), a name too long: no folder
  }
}

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { redactText } from '../core/redact.js';
import type { Checkpoint } from '../core/schema.js';
import { applyTranscript, isTalkAboutWork, type TranscriptRecord } from '../core/transcript.js';
import { blobOid } from '../git/oid.js';
import { CheckpointStore } from '../store/checkpoint-store.js';
import { settingsOf } from '../store/settings-file.js';
import { defaultStoreBase, projectStoreDir } from '../store/store-location.js';
import { readTranscriptMemory, writeTranscriptMemory } from '../store/transcript-memory.js';
import {
  INLINE_TRANSCRIPT_READERS,
  type InlineTranscriptState,
  TRANSCRIPT_READERS,
  type TranscriptReader,
} from '../transcripts/readers.js';
import type { AppDeps } from './deps.js';
import { loadRedactionConfig } from './redaction.js';
import { resolveProjectRoot } from './root.js';

/** An agent's transcript, as its hook names it. */
export interface TranscriptSource {
  agent: string;
  /** The transcript file (Claude Code: `transcript_path`). */
  file: string;
  session: string;
  /** The last assistant message, when the hook hands it over (Claude Code's Stop): newer than the file. */
  lastMessage?: string | undefined;
  /** The session itself, when the hook hands it over instead of naming a file (OpenCode's plugin). */
  inline?: unknown;
}

export type TranscriptOutcome =
  | { recorded: false; why: string; quiet?: boolean }
  | { recorded: true; changed: boolean; created: boolean; root: string };

/**
 * Fills the checkpoint from the agent's session transcript (see applyTranscript): what the agent saved
 * itself stays. `full` also records the files the agent's edit tools wrote, with their content's oids,
 * through a full save (git scan included); otherwise only the checkpoint file is read and written, which
 * is what a hook at the end of every turn can afford. A checkpoint that does not exist yet is started
 * by a full save. `filesAtTurnEnd` (an agent with no session end to do it: Codex, OpenCode): a full save
 * too when a file the agent wrote is not in the checkpoint as it is now, or the next brief calls the
 * agent's own edit a change by someone else. A transcript that cannot be read changes nothing.
 */
export async function recordTranscript(
  deps: AppDeps,
  request: {
    projectRoot?: string | undefined;
    source: TranscriptSource;
    full: boolean;
    filesAtTurnEnd?: boolean | undefined;
  },
): Promise<TranscriptOutcome> {
  if (!settingsOf(deps).fromTranscript) return { recorded: false, why: 'fromTranscript is off', quiet: true };
  const isInline = request.source.inline !== undefined;
  const reader = isInline ? undefined : TRANSCRIPT_READERS[request.source.agent];
  const inlineReader = isInline ? INLINE_TRANSCRIPT_READERS[request.source.agent] : undefined;
  if (!reader && !inlineReader)
    return { recorded: false, why: `no transcript reader for ${request.source.agent}`, quiet: true };
  const { root } = await resolveProjectRoot({
    argument: request.projectRoot,
    env: deps.env,
    cwd: deps.cwd,
    surface: deps.surface,
    argumentLabel: deps.rootArgument,
  });
  const { agent, file, session } = request.source;
  const storeDir = projectStoreDir(defaultStoreBase(deps.env), root);
  // A session handed over whole is remembered by its id, a file by its path.
  const memoryKey = inlineReader ? `session:${session}` : file;
  const memory = readTranscriptMemory(storeDir, agent, memoryKey);
  const any = (reader ?? inlineReader) as TranscriptReader<unknown>;
  const previous = any.stateOrNull(memory);
  const read = reader
    ? reader.read(file, session, previous)
    : (inlineReader?.read(request.source.inline, session, previous as InlineTranscriptState | null) ?? null);
  if (!read)
    return {
      recorded: false,
      why: isInline
        ? 'the session handed over could not be read'
        : `the transcript ${file} could not be read`,
    };
  // The hook's last message is the newest turn's reply: the status when that turn did work, or when it
  // says something of the work; an acknowledgement ("Noted." to "Thanks") keeps the status before it.
  const lastMessage = request.source.lastMessage?.trim();
  const isStatus =
    lastMessage !== undefined &&
    lastMessage !== '' &&
    (read.record.newestTurnWorked === true || isTalkAboutWork(lastMessage));
  const status = isStatus ? lastMessage : read.record.status;
  const redaction = await loadRedactionConfig(deps.fs, deps.env, root);
  // A hook says what is wrong with a redaction file (a save lists it in its warnings).
  for (const problem of redaction.problems) deps.settingsProblem?.(problem);
  const redacted = (text: string | undefined) =>
    text === undefined ? undefined : redactText(text, redaction.config).text;
  // What the read before handed over, redacted as it was kept: what differs is newer than it.
  const before = previous !== null ? any.recordOf(previous, session) : undefined;
  const tasksText = (tasks: TranscriptRecord['tasks']) =>
    JSON.stringify(tasks?.map((task) => ({ ...task, description: redacted(task.description) })));
  const record: TranscriptRecord = {
    ...read.record,
    status,
    // The hook's message is the reply that ended the newest turn: it is dated by the turn's start, so a
    // save made in an earlier turn is older (on a session's first read too: a new-user trial flagged the
    // tasks but not the status), and one made in this turn keeps its status (a review: "I saved a
    // checkpoint…" was called newer than the save it reports). Where the turn's start is not known, what
    // changed since the read before decides.
    statusAt: isStatus ? read.record.newestTurnAt : read.record.statusAt,
    changedSinceLastRead: {
      tasks: before !== undefined && tasksText(before.tasks) !== tasksText(read.record.tasks),
      status: before !== undefined && redacted(before.status) !== redacted(status),
    },
  };
  // Security: what is kept of the transcript in our store is redacted too.
  const remember = () => {
    writeTranscriptMemory(
      deps.fs,
      storeDir,
      agent,
      memoryKey,
      any.mapText(read.state, (text) => redactText(text, redaction.config).text),
    );
  };

  // The files the agent wrote since the read before are its own latest content: not someone else's change
  // (trial 4 of issue 26), a file it wrote in an earlier turn and again in this one included (the reader
  // tells which; a review found the second edit flagged). One written only before may have been changed
  // by someone since: that stays flagged.
  const writtenBefore = new Set(before?.files ?? []);
  const writtenSince = new Set(
    read.filesSinceLastRead ?? record.files.filter((file) => !writtenBefore.has(file)),
  );
  const written = {
    since: filesInside(
      root,
      record.files.filter((file) => writtenSince.has(file)),
    ),
    before: filesInside(
      root,
      record.files.filter((file) => !writtenSince.has(file)),
    ),
  };
  const store = new CheckpointStore(root, deps.fs);
  if (!request.full) {
    const cheap = await deps.queue.run(root, () =>
      store.withLock(async () => {
        const loaded = await store.load();
        if (!loaded.found) return null;
        if (request.filesAtTurnEnd && hasUnrecordedWrites(loaded.checkpoint, root, written)) return null;
        const filled = applyTranscript(loaded.checkpoint, record, {
          now: deps.now(),
          redaction: redaction.config,
        });
        if (filled.changed) await store.writeLocked(filled.serialized, filled.checkpoint);
        return filled.changed;
      }),
    );
    if (cheap !== null) {
      remember();
      return { recorded: true, changed: cheap, created: false, root };
    }
  }
  const { captureFacts } = await import('./capture-facts.js');
  const existed = await store.mayExist();
  const saved = await captureFacts(deps, {
    projectRoot: root,
    transcript: record,
    files: filesInside(root, record.files),
    agentWrote: written.since,
  });
  remember();
  return { recorded: true, changed: true, created: !existed, root: saved.root.root };
}

/** Past this many bytes of written files, they are not hashed here: the full save hashes them anyway. */
const HASH_MAX_BYTES = 8 * 1024 * 1024;

/**
 * Whether a file the agent wrote (relative to `root`) differs from what the checkpoint records of it:
 * one written since the read before and not listed; one listed with another content, or gone where the
 * checkpoint does not say deleted. One written in an earlier turn and not listed was recorded then, and
 * has been committed, ignored or removed since: a full save at every turn's end would find it the same.
 * Hashed as `git hash-object --no-filters` does: where filters change a file, it differs, and the full
 * save (which asks git) decides; never the other way round.
 */
function hasUnrecordedWrites(
  checkpoint: Checkpoint,
  root: string,
  written: { since: readonly string[]; before: readonly string[] },
): boolean {
  const listed = new Map(checkpoint.modifiedFiles.map((file) => [file.path, file]));
  const isNew = new Set(written.since);
  let bytes = 0;
  for (const file of [...written.since, ...written.before]) {
    const entry = listed.get(file);
    if (!entry) {
      if (isNew.has(file)) return true;
      continue;
    }
    let content: Buffer;
    try {
      content = readFileSync(path.join(root, file));
    } catch {
      if (entry.status === 'D') continue;
      return true;
    }
    bytes += content.byteLength;
    if (!entry.hash || bytes > HASH_MAX_BYTES) return true;
    if (blobOid(content, entry.hash.length === 64 ? 'sha256' : 'sha1') !== entry.hash) return true;
  }
  return false;
}

/** The written files that are inside the project, relative to it; the agent may write anywhere. */
function filesInside(root: string, files: readonly string[]): string[] {
  const inside: string[] = [];
  for (const file of files) {
    const relative = path.relative(root, path.resolve(root, file));
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
    inside.push(relative.split(path.sep).join('/'));
  }
  return inside;
}

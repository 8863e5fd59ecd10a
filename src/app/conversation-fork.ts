import { constants } from 'node:fs';
import * as fsp from 'node:fs/promises';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import type { SnapshotRecord } from '../core/snapshot.js';
import { agentHome } from '../store/agent-homes.js';
import { homeFolder } from '../store/home-folder.js';
import {
  createClaudeFork,
  createPromptCollector,
  findTranscriptPrompt,
  type PromptSelector,
} from './claude-transcript.js';
import { codexRolloutFileName, createCodexCollector, createCodexFork } from './codex-rollout.js';
import { createCopilotCollector, createCopilotFork, forkCopilotWorkspace } from './copilot-session.js';
import type { AppDeps } from './deps.js';
import { forkGeminiChat, geminiChatFileName, geminiPrompts, resolveGeminiChat } from './gemini-chat.js';

/** How a session of each agent is continued from a terminal. */
const RESUME: Record<string, (sessionId: string) => string> = {
  claude: (id) => `claude --resume ${id}`,
  codex: (id) => `codex resume ${id}`,
  gemini: (id) => `gemini --resume ${id}`,
  copilot: (id) => `copilot --resume ${id}`,
  opencode: (id) => `opencode --session ${id}`,
};

/**
 * Why we write no new session for OpenCode, and what it offers instead: it keeps its sessions in its own
 * SQLite database, which only it writes (through its running server, or `opencode import`), and it forks
 * at a message itself.
 */
const NO_FORK: Record<string, string> = {
  opencode:
    'OpenCode keeps its sessions in its own database, which we never write. It forks at a prompt itself, leaving the original as it was: in the session, /fork ("Fork from message") lists its prompts; pick this one, and a new session holds what came before it, with the prompt back in the input.',
};

/** `claude --resume <id>` and its like, or null for an agent we do not know. */
export function resumeCommand(agent: string | null | undefined, sessionId: string): string | null {
  const make = RESUME[agent ?? 'claude'];
  return make ? make(sessionId) : null;
}

export interface ConversationPlan {
  /** Whether a new session can be written that holds the conversation before the prompt. */
  canFork: boolean;
  /** Why not, for people. */
  reason: string | null;
  /** The transcript a fork would read (never written). */
  transcript: string | null;
}

export interface ConversationFork {
  sessionId: string;
  transcript: string;
  resume: string;
  messages: number;
}

export interface ConversationOutcome extends ConversationPlan {
  /** The new session, when one was written. */
  fork: ConversationFork | null;
  /** The prompt's text, to send again or edit: the transcript's, else the snapshot's label. */
  prompt: string;
  /**
   * The prompt is the snapshot's label, not the transcript's text: possibly cut (a label keeps its first
   * line, at most 200 characters) and redacted.
   */
  promptFromLabel: boolean;
  /** How to continue the original session (for an agent whose conversation we cannot fork). */
  resumeOriginal: string | null;
  /**
   * No new session was wanted, so none written is no failure: the prompt opened the session (nothing came
   * before it), or the agent forks its own sessions (OpenCode).
   */
  noForkNeeded?: true;
}

type PromptSnapshot = SnapshotRecord & { sessionId: string };

/** What forking one transcript's text gave. */
type ForkAttempt =
  | {
      kind: 'forked';
      /**
       * The new session's files, by their paths relative to the transcript's folder; the first is its
       * transcript. Each is its text, or its lines, made as they are written (a transcript too large
       * to hold twice).
       */
      files: Array<{ path: string; text: string } | { path: string; lines: () => AsyncIterable<string> }>;
      /** A folder to make first (relative, as the files), for an agent that keeps a folder per session. */
      folder?: string;
      messages: number;
      prompt: string;
    }
  | { kind: 'no-prompt' }
  | { kind: 'first'; prompt: string }
  | { kind: 'other-session' };

/** What we know of one agent's session files: where they are, how to fork one, how to go on. */
interface Forker {
  /** The agent's name, for people. */
  name: string;
  /** The command that starts a new session. */
  start: string;
  /** Where the agent keeps the session's transcript, for a "not found". */
  where(env: NodeJS.ProcessEnv, root: string): string;
  /**
   * The folder under which the agent keeps every session. Security: a transcript is forked only from
   * inside it, and the new session is written only there (a hook's `transcript_path` names any file).
   */
  sessionsRoot(env: NodeJS.ProcessEnv): string;
  /** The files that may be the session's transcript, most likely first (each a regular file). */
  candidates(env: NodeJS.ProcessEnv, root: string, snapshot: PromptSnapshot): Promise<string[]>;
  /** Files beside the transcript that a fork carries over too (read, never written). */
  companions?: readonly string[];
  /** The fork of the transcript's text, read whole (up to MAX_TRANSCRIPT_BYTES). */
  fork?(
    text: string,
    snapshot: PromptSnapshot,
    sessionId: string,
    deps: Pick<AppDeps, 'newId' | 'now'>,
    companions: ReadonlyMap<string, string>,
  ): ForkAttempt;
  /** The fork of the transcript's lines, read again from its start on each call of `lines`, never whole. */
  forkLines?(
    lines: () => AsyncIterable<string>,
    snapshot: PromptSnapshot,
    sessionId: string,
    deps: Pick<AppDeps, 'newId' | 'now'>,
    companions: ReadonlyMap<string, string>,
  ): Promise<ForkAttempt>;
}

/** Security: a session id names a file; one that could climb out of a folder, or glob, names none. */
const isPlainId = (id: string) => /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id) && !id.includes('..');

const homeOf = (env: NodeJS.ProcessEnv) => homeFolder(env);

/**
 * Claude Code's folder for a project's sessions: `<config>/projects/<cwd with every character other
 * than a letter or digit made a dash>`, `<config>` being CLAUDE_CONFIG_DIR or ~/.claude.
 */
export function claudeProjectDir(env: NodeJS.ProcessEnv, projectRoot: string): string {
  return path.join(claudeProjectsDir(env), projectRoot.replace(/[^a-zA-Z0-9]/g, '-'));
}

/** Claude Code's folder of every project's sessions: `<config>/projects`. */
function claudeProjectsDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.CLAUDE_CONFIG_DIR?.trim() || path.join(homeOf(env), '.claude'), 'projects');
}

/** Gemini CLI's folder of per-project state (GEMINI_CLI_HOME stands for the home folder). */
function geminiTmpDir(env: NodeJS.ProcessEnv): string {
  return path.join(agentHome(env, 'gemini'), 'tmp');
}

/** Copilot CLI's sessions folder: `$COPILOT_HOME/session-state`, COPILOT_HOME being ~/.copilot unless set. */
function copilotSessionsDir(env: NodeJS.ProcessEnv): string {
  return path.join(agentHome(env, 'copilot'), 'session-state');
}

/** Codex's sessions folder: `$CODEX_HOME/sessions`, CODEX_HOME being ~/.codex unless set. */
function codexSessionsDir(env: NodeJS.ProcessEnv): string {
  return path.join(agentHome(env, 'codex'), 'sessions');
}

const isFile = async (file: string) => (await fsp.lstat(file).catch(() => null))?.isFile() === true;
const listDir = async (dir: string) => (await fsp.readdir(dir).catch(() => [] as string[])).sort().reverse();

/**
 * `candidates` that are regular files (no link at the last step) in a folder under `sessionsRoot`, as
 * the file system resolves both, each once, in order.
 */
async function existingFiles(sessionsRoot: string, candidates: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const candidate of new Set(candidates))
    if ((await isFile(candidate)) && (await isInsideReal(sessionsRoot, path.dirname(candidate))))
      files.push(candidate);
  return files;
}

/**
 * Security: whether `dir` lies inside `root` (or is it), both resolved through any link: a path that
 * climbs out with `..` or through a link is not inside.
 */
async function isInsideReal(root: string, dir: string): Promise<boolean> {
  const [realRoot, realDir] = await Promise.all([
    fsp.realpath(root).catch(() => null),
    fsp.realpath(dir).catch(() => null),
  ]);
  if (realRoot === null || realDir === null) return false;
  const relative = path.relative(realRoot, realDir);
  return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

/** The prompt of a snapshot, as the search in a transcript takes it. */
const selectorOf = (snapshot: PromptSnapshot): PromptSelector => ({
  promptId: snapshot.promptId,
  label: snapshot.label,
  createdAt: snapshot.createdAt,
});

const claude: Forker = {
  name: 'Claude Code',
  start: 'claude',
  where: (env, root) => claudeProjectDir(env, root),
  sessionsRoot: claudeProjectsDir,
  candidates: (env, root, snapshot) => {
    const name = `${snapshot.sessionId}.jsonl`;
    // Security: a recorded path is used only if it names this session's transcript file.
    const recorded = snapshot.transcriptPath && path.basename(snapshot.transcriptPath) === name;
    return existingFiles(claudeProjectsDir(env), [
      ...(recorded ? [snapshot.transcriptPath as string] : []),
      path.join(claudeProjectDir(env, root), name),
    ]);
  },
  // Line by line: a long session's transcript is hundreds of MB, and held whole (as a string, its lines
  // and their objects) it took about 12 times its size (helper task, issue 26).
  forkLines: async (lines, snapshot, sessionId, deps) => {
    const collector = createPromptCollector();
    for await (const raw of lines()) collector.line(raw);
    const prompt = findTranscriptPrompt(collector.prompts, selectorOf(snapshot));
    if (!prompt) return { kind: 'no-prompt' };
    const fork = createClaudeFork(prompt, sessionId, deps.newId);
    if (!fork) return { kind: 'first', prompt: prompt.text };
    async function* forked() {
      for await (const raw of lines()) {
        if (fork?.isDone()) break;
        const line = fork?.line(raw);
        if (line) yield line;
      }
      yield (fork as NonNullable<typeof fork>).close(prompt?.previousPrompt ?? '');
    }
    return {
      kind: 'forked',
      files: [{ path: `${sessionId}.jsonl`, lines: forked }],
      messages: prompt.messagesBefore,
      prompt: prompt.text,
    };
  },
};

const gemini: Forker = {
  name: 'Gemini CLI',
  start: 'gemini',
  where: (env) => path.join(geminiTmpDir(env), '<project>', 'chats'),
  sessionsRoot: geminiTmpDir,
  candidates: async (env, _root, snapshot) => {
    const short = snapshot.sessionId.slice(0, 8);
    // Security: a recorded path is used only if it names a chat file of this session in a chats folder.
    const isChatFile = (file: string) =>
      path.basename(path.dirname(file)) === 'chats' &&
      /^session-.+\.jsonl?$/.test(path.basename(file)) &&
      path
        .basename(file)
        .replace(/\.jsonl?$/, '')
        .endsWith(`-${short}`);
    const chatsOf = async (chats: string) =>
      (await listDir(chats)).map((name) => path.join(chats, name)).filter(isChatFile);
    const recorded =
      snapshot.transcriptPath && isChatFile(snapshot.transcriptPath) ? snapshot.transcriptPath : null;
    // A resumed session can leave more than one file with its id: the recorded one, then its folder's, then
    // every project's.
    const tmp = geminiTmpDir(env);
    const others: string[] = [];
    for (const project of await listDir(tmp))
      others.push(...(await chatsOf(path.join(tmp, project, 'chats'))));
    return existingFiles(tmp, [
      ...(recorded ? [recorded, ...(await chatsOf(path.dirname(recorded)))] : []),
      ...others,
    ]);
  },
  fork: (text, snapshot, sessionId, deps) => {
    const chat = resolveGeminiChat(text);
    if (!chat || chat.metadata.sessionId !== snapshot.sessionId) return { kind: 'other-session' };
    const prompt = findTranscriptPrompt(geminiPrompts(chat), selectorOf(snapshot));
    if (!prompt) return { kind: 'no-prompt' };
    const now = deps.now();
    const fork = forkGeminiChat(chat, prompt, sessionId, now);
    if (!fork) return { kind: 'first', prompt: prompt.text };
    return {
      kind: 'forked',
      files: [{ path: geminiChatFileName(sessionId, now, chat.isDocument), text: fork.text }],
      messages: fork.messages,
      prompt: prompt.text,
    };
  },
};

const codex: Forker = {
  name: 'Codex',
  start: 'codex',
  where: (env) => codexSessionsDir(env),
  sessionsRoot: codexSessionsDir,
  candidates: async (env, _root, snapshot) => {
    const isRollout = (file: string) => {
      const name = path.basename(file);
      return name.startsWith('rollout-') && name.endsWith(`-${snapshot.sessionId}.jsonl`);
    };
    // Security: a recorded path is used only if it names this session's rollout file.
    if (snapshot.transcriptPath && isRollout(snapshot.transcriptPath)) {
      const recorded = await existingFiles(codexSessionsDir(env), [snapshot.transcriptPath]);
      if (recorded.length > 0) return recorded;
    }
    // Else the dated folders (YYYY/MM/DD), newest first, up to the first rollout of this session.
    const sessions = codexSessionsDir(env);
    for (const year of await listDir(sessions))
      for (const month of await listDir(path.join(sessions, year)))
        for (const day of await listDir(path.join(sessions, year, month))) {
          const dir = path.join(sessions, year, month, day);
          const found = await existingFiles(
            sessions,
            (await listDir(dir)).map((name) => path.join(dir, name)).filter(isRollout),
          );
          if (found.length > 0) return found;
        }
    return [];
  },
  // Line by line, as Claude Code's: a long session's rollout is hundreds of MB.
  forkLines: async (lines, snapshot, sessionId, deps) => {
    const collector = createCodexCollector();
    for await (const raw of lines()) collector.line(raw);
    const oldSessionId = collector.sessionId();
    if (oldSessionId === null || oldSessionId !== snapshot.sessionId) return { kind: 'other-session' };
    const prompt = findTranscriptPrompt(collector.prompts, selectorOf(snapshot));
    if (!prompt) return { kind: 'no-prompt' };
    if (!collector.prompts.some((earlier) => earlier.index < prompt.turnStart))
      return { kind: 'first', prompt: prompt.text };
    const now = deps.now();
    const fork = createCodexFork(oldSessionId, prompt, sessionId, now);
    async function* forked() {
      for await (const raw of lines()) {
        if (fork.isDone()) break;
        const line = fork.line(raw);
        if (line) yield line;
      }
    }
    return {
      kind: 'forked',
      files: [{ path: codexRolloutFileName(sessionId, now), lines: forked }],
      messages: collector.messagesBefore(prompt.turnStart),
      prompt: prompt.text,
    };
  },
};

const copilot: Forker = {
  name: 'Copilot CLI',
  start: 'copilot',
  where: (env) => copilotSessionsDir(env),
  sessionsRoot: copilotSessionsDir,
  candidates: (env, _root, snapshot) => {
    // Security: a recorded path is used only if it names this session's events file, in its own folder.
    const isEventsFile = (file: string) =>
      path.basename(file) === 'events.jsonl' && path.basename(path.dirname(file)) === snapshot.sessionId;
    const recorded =
      snapshot.transcriptPath && isEventsFile(snapshot.transcriptPath) ? [snapshot.transcriptPath] : [];
    return existingFiles(copilotSessionsDir(env), [
      ...recorded,
      path.join(copilotSessionsDir(env), snapshot.sessionId, 'events.jsonl'),
    ]);
  },
  companions: ['workspace.yaml'],
  // Line by line, as Claude Code's: a long session's events are hundreds of MB.
  forkLines: async (lines, snapshot, sessionId, deps, companions) => {
    const collector = createCopilotCollector();
    for await (const raw of lines()) collector.line(raw);
    const oldSessionId = collector.sessionId();
    if (oldSessionId === null || oldSessionId !== snapshot.sessionId) return { kind: 'other-session' };
    const prompt = findTranscriptPrompt(collector.prompts, selectorOf(snapshot));
    if (!prompt) return { kind: 'no-prompt' };
    if (!collector.prompts.some((earlier) => earlier.index < prompt.runStart))
      return { kind: 'first', prompt: prompt.text };
    const fork = createCopilotFork(oldSessionId, prompt, sessionId);
    async function* forked() {
      for await (const raw of lines()) {
        if (fork.isDone()) break;
        const line = fork.line(raw);
        if (line) yield line;
      }
    }
    const workspace = forkCopilotWorkspace(companions.get('workspace.yaml') ?? null, sessionId, deps.now());
    // A folder of its own beside the original's, named by the new id, as Copilot CLI keeps each session.
    const folder = path.join('..', sessionId);
    return {
      kind: 'forked',
      folder,
      files: [
        { path: path.join(folder, 'events.jsonl'), lines: forked },
        ...(workspace === null ? [] : [{ path: path.join(folder, 'workspace.yaml'), text: workspace }]),
      ],
      messages: collector.messagesBefore(prompt.runStart),
      prompt: prompt.text,
    };
  },
};

const FORKERS: Record<string, Forker> = { claude, gemini, codex, copilot };

/** A transcript is read whole to be forked: past this size, it is not. */
const MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024;

/** A transcript opened to be read, or why it cannot be. Security: no link is followed at its last step. */
async function openTranscript(file: string): Promise<{ handle: fsp.FileHandle } | { reason: string }> {
  const handle = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => null);
  if (!handle) return { reason: `${file} could not be read.` };
  const stats = await handle.stat().catch(() => null);
  if (stats?.isFile()) return { handle };
  await handle.close();
  return { reason: `${file} is not a regular file.` };
}

/** An opened transcript's text, or why it is not read whole. */
async function readWhole(handle: fsp.FileHandle, file: string): Promise<string | { reason: string }> {
  if ((await handle.stat()).size > MAX_TRANSCRIPT_BYTES)
    return { reason: `${file} is too large to fork (over 256 MB).` };
  return handle.readFile('utf8');
}

/** The transcript's text, or why it cannot be forked. */
async function readTranscript(file: string): Promise<string | { reason: string }> {
  const opened = await openTranscript(file);
  if ('reason' in opened) return opened;
  try {
    return await readWhole(opened.handle, file);
  } finally {
    await opened.handle.close();
  }
}

const LINE_CHUNK_BYTES = 1024 * 1024;

/**
 * An opened file's lines from its start, as `split('\n')` gives them, one at a time: no more than a
 * chunk and the line being read are held.
 */
async function* linesOf(handle: fsp.FileHandle): AsyncGenerator<string> {
  const buffer = Buffer.allocUnsafe(LINE_CHUNK_BYTES);
  let pending: Buffer[] = [];
  for (let position = 0; ; ) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = buffer.subarray(0, bytesRead);
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      yield Buffer.concat([...pending, chunk.subarray(start, end)]).toString('utf8');
      pending = [];
      start = end + 1;
    }
    // Copied: the buffer is read into again.
    if (start < bytesRead) pending.push(Buffer.from(chunk.subarray(start)));
  }
  yield Buffer.concat(pending).toString('utf8');
}

/** Writes lines to a new file (never an existing one), 0600, in batches; a file cut short is removed. */
async function writeLines(file: string, lines: AsyncIterable<string>): Promise<void> {
  const out = await fsp.open(file, 'wx', 0o600);
  try {
    let batch = '';
    for await (const line of lines) {
      batch += `${line}\n`;
      if (batch.length >= LINE_CHUNK_BYTES) {
        await out.writeFile(batch);
        batch = '';
      }
    }
    if (batch) await out.writeFile(batch);
    await out.close();
  } catch (error) {
    await out.close().catch(() => undefined);
    await fsp.rm(file, { force: true });
    throw error;
  }
}

/** The agent's files that may hold the session, with why there is none when there is none. */
async function transcriptsOf(
  env: NodeJS.ProcessEnv,
  root: string,
  snapshot: PromptSnapshot,
): Promise<{ files: string[]; reason: string | null }> {
  const agent = snapshot.agent ?? 'claude';
  const forker = FORKERS[agent];
  if (!forker) return { files: [], reason: NO_FORK[agent] ?? `${agent} sessions cannot be forked.` };
  const files = isPlainId(snapshot.sessionId) ? await forker.candidates(env, root, snapshot) : [];
  if (files.length > 0) return { files, reason: null };
  const sessions = forker.sessionsRoot(env);
  const recorded = snapshot.transcriptPath;
  const outside =
    recorded && !(await isInsideReal(sessions, path.dirname(recorded)))
      ? ` The transcript the hooks recorded, ${recorded}, is outside ${sessions}, where ${forker.name} keeps its sessions: a conversation is forked only from there (beside a transcript that is a plain file), so nothing was written.`
      : '';
  return {
    files,
    reason: `${forker.name}'s transcript of session ${snapshot.sessionId} was not found (in ${forker.where(env, root)}).${outside}`,
  };
}

/** Whether the conversation before this prompt can be written as a new session, and from where. */
export async function planConversation(
  env: NodeJS.ProcessEnv,
  root: string,
  snapshot: PromptSnapshot,
): Promise<ConversationPlan> {
  const { files, reason } = await transcriptsOf(env, root, snapshot);
  return { canFork: files.length > 0, reason, transcript: files[0] ?? null };
}

/**
 * Writes a new session beside the original (Claude Code, Gemini CLI, Codex, Copilot CLI), holding the conversation up
 * to and not including the snapshot's prompt, under a new session id that the agent's own resume finds.
 * The original transcript is only read: Claude Code's own /rewind rewrites it in place, and people lost
 * sessions that way.
 */
export async function forkConversation(
  deps: Pick<AppDeps, 'env' | 'newId' | 'now'>,
  root: string,
  snapshot: PromptSnapshot,
  dryRun: boolean,
): Promise<ConversationOutcome> {
  const { files, reason } = await transcriptsOf(deps.env, root, snapshot);
  const base: ConversationOutcome = {
    canFork: false,
    reason,
    transcript: null,
    fork: null,
    prompt: snapshot.label ?? '',
    promptFromLabel: true,
    resumeOriginal: resumeCommand(snapshot.agent, snapshot.sessionId),
    ...(NO_FORK[snapshot.agent ?? 'claude'] ? { noForkNeeded: true as const } : {}),
  };
  const forker = FORKERS[snapshot.agent ?? 'claude'];
  if (!forker || files.length === 0) return base;
  const sessionId = deps.newId();
  let missed: ConversationOutcome | null = null;
  // The first file that holds the prompt: a session can have more than one (Gemini CLI on resume).
  for (const file of files) {
    const here = { ...base, transcript: file };
    const source = await openTranscript(file);
    if ('reason' in source) {
      missed ??= { ...here, reason: source.reason };
      continue;
    }
    try {
      const attempt = await forkOne(forker, source.handle, file, snapshot, sessionId, deps);
      if ('reason' in attempt) {
        missed ??= { ...here, reason: attempt.reason };
        continue;
      }
      const outcome = await writeFork(attempt, here, file, snapshot, sessionId, forker, dryRun, deps.env);
      if (outcome.reason === null || attempt.kind === 'first') return outcome;
      missed ??= outcome;
    } finally {
      await source.handle.close();
    }
  }
  return missed ?? base;
}

/** One transcript's fork: by its lines, or by its text (with its companions), as the agent's forker does. */
async function forkOne(
  forker: Forker,
  handle: fsp.FileHandle,
  file: string,
  snapshot: PromptSnapshot,
  sessionId: string,
  deps: Pick<AppDeps, 'newId' | 'now'>,
): Promise<ForkAttempt | { reason: string }> {
  // The companions are small files beside the transcript (Copilot CLI's workspace.yaml), read whole.
  const companions = new Map<string, string>();
  for (const name of forker.companions ?? []) {
    const companion = await readTranscript(path.join(path.dirname(file), name));
    if (typeof companion === 'string') companions.set(name, companion);
  }
  if (forker.forkLines) return forker.forkLines(() => linesOf(handle), snapshot, sessionId, deps, companions);
  const text = await readWhole(handle, file);
  if (typeof text !== 'string') return text;
  return (forker.fork as NonNullable<Forker['fork']>)(text, snapshot, sessionId, deps, companions);
}

/** What a fork attempt comes to: the new session written (unless a dry run), or why there is none. */
async function writeFork(
  attempt: ForkAttempt,
  here: ConversationOutcome,
  file: string,
  snapshot: PromptSnapshot,
  sessionId: string,
  forker: Forker,
  dryRun: boolean,
  env: NodeJS.ProcessEnv,
): Promise<ConversationOutcome> {
  switch (attempt.kind) {
    case 'other-session':
      return { ...here, reason: `${file} is not the transcript of session ${snapshot.sessionId}.` };
    case 'no-prompt':
      return { ...here, reason: `The prompt of snapshot ${snapshot.id} was not found in ${file}.` };
    case 'first':
      return {
        ...here,
        prompt: attempt.prompt,
        promptFromLabel: false,
        noForkNeeded: true,
        reason: `This prompt opened the session: nothing came before it. Start a new session (\`${forker.start}\`) and send it again.`,
      };
  }
  const folder = path.dirname(file);
  const written = attempt.files.map((each) => ({ ...each, path: path.join(folder, each.path) }));
  const transcript = written[0]?.path ?? '';
  // Security: checked again where it is written, the new folder's parent for a folder of its own.
  const writesIn = attempt.folder ? path.dirname(path.join(folder, attempt.folder)) : folder;
  if (!(await isInsideReal(forker.sessionsRoot(env), writesIn)))
    throw new CheckpointError(
      'UNSAFE_PATH',
      `refusing to write the new session in ${writesIn}: it is outside ${forker.sessionsRoot(env)}, where ${forker.name} keeps its sessions`,
    );
  if (!dryRun) {
    try {
      // A new folder and new files, never existing ones; 0700 and 0600, as the agents make their own.
      if (attempt.folder) await fsp.mkdir(path.join(folder, attempt.folder), { mode: 0o700 });
      for (const each of written)
        if ('text' in each) await fsp.writeFile(each.path, each.text, { flag: 'wx', mode: 0o600 });
        else await writeLines(each.path, each.lines());
    } catch (error: unknown) {
      throw new CheckpointError('IO_FAILED', `could not write the new session ${transcript}`, {
        cause: error,
      });
    }
  }
  return {
    ...here,
    canFork: true,
    reason: null,
    prompt: attempt.prompt,
    promptFromLabel: false,
    fork: {
      sessionId,
      transcript,
      resume: resumeCommand(snapshot.agent, sessionId) ?? '',
      messages: attempt.messages,
    },
  };
}

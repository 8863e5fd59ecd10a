import * as fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CheckpointError } from '../core/errors.js';
import type { SnapshotRecord } from '../core/snapshot.js';
import { findTranscriptPrompt, forkClaudeTranscript, transcriptPrompts } from './claude-transcript.js';
import type { AppDeps } from './deps.js';

/** How a session of each agent is continued from a terminal. */
const RESUME: Record<string, (sessionId: string) => string> = {
  claude: (id) => `claude --resume ${id}`,
  codex: (id) => `codex resume ${id}`,
  gemini: (id) => `gemini --resume ${id}`,
  copilot: (id) => `copilot --resume ${id}`,
  opencode: (id) => `opencode --session ${id}`,
};

/** What each agent other than Claude Code offers instead of a fork we could write for it. */
const NO_FORK: Record<string, string> = {
  codex:
    'Codex keeps its sessions as rollout files, which we do not write; `codex fork <id>` copies a whole session, and in Codex, Esc twice on an empty input goes back to an earlier message.',
  gemini:
    'Gemini CLI keeps its chats under ~/.gemini/tmp/<project>/chats, which we do not write; in Gemini CLI, /rewind goes back to an earlier message of the session.',
  copilot: 'we know of no supported way to start a Copilot CLI session from part of another one.',
  opencode:
    'OpenCode keeps sessions in its own storage, which we do not write; `opencode --session <id> --fork` copies a whole session, and in OpenCode, /undo takes back the last message.',
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
  /** How to continue the original session (for an agent whose conversation we cannot fork). */
  resumeOriginal: string | null;
}

/**
 * Claude Code's folder for a project's sessions: `<config>/projects/<cwd with every character other
 * than a letter or digit made a dash>`, `<config>` being CLAUDE_CONFIG_DIR or ~/.claude.
 */
export function claudeProjectDir(env: NodeJS.ProcessEnv, projectRoot: string): string {
  const config = env.CLAUDE_CONFIG_DIR?.trim() || path.join(env.HOME?.trim() || os.homedir(), '.claude');
  return path.join(config, 'projects', projectRoot.replace(/[^a-zA-Z0-9]/g, '-'));
}

/** The session's transcript: where its hook said it was, else where Claude Code keeps it for this project. */
async function claudeTranscript(
  env: NodeJS.ProcessEnv,
  root: string,
  snapshot: SnapshotRecord & { sessionId: string },
): Promise<string | null> {
  // Security: the session id names a file; one that could climb out of the folder names none.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(snapshot.sessionId)) return null;
  const name = `${snapshot.sessionId}.jsonl`;
  // Security: a recorded path is used only if it names this session's transcript file.
  const candidates = [
    ...(snapshot.transcriptPath && path.basename(snapshot.transcriptPath) === name
      ? [snapshot.transcriptPath]
      : []),
    path.join(claudeProjectDir(env, root), name),
  ];
  for (const candidate of candidates) {
    const stats = await fsp.lstat(candidate).catch(() => null);
    if (stats?.isFile()) return candidate;
  }
  return null;
}

/** Whether the conversation before this prompt can be written as a new session, and from where. */
export async function planConversation(
  env: NodeJS.ProcessEnv,
  root: string,
  snapshot: SnapshotRecord & { sessionId: string },
): Promise<ConversationPlan> {
  const agent = snapshot.agent ?? 'claude';
  if (agent !== 'claude') {
    return {
      canFork: false,
      reason: NO_FORK[agent] ?? `${agent} sessions cannot be forked.`,
      transcript: null,
    };
  }
  const transcript = await claudeTranscript(env, root, snapshot);
  if (!transcript) {
    return {
      canFork: false,
      reason: `Claude Code's transcript of session ${snapshot.sessionId} was not found (in ${claudeProjectDir(env, root)}).`,
      transcript: null,
    };
  }
  return { canFork: true, reason: null, transcript };
}

/**
 * Writes a new Claude Code session beside the original, holding the conversation up to and not
 * including the snapshot's prompt. The original transcript is only read: Claude Code's own /rewind
 * rewrites it in place, and people lost sessions that way.
 */
export async function forkConversation(
  deps: Pick<AppDeps, 'env' | 'newId'>,
  root: string,
  snapshot: SnapshotRecord & { sessionId: string },
  dryRun: boolean,
): Promise<ConversationOutcome> {
  const plan = await planConversation(deps.env, root, snapshot);
  const base = {
    ...plan,
    fork: null,
    prompt: snapshot.label ?? '',
    resumeOriginal: resumeCommand(snapshot.agent, snapshot.sessionId),
  };
  if (!plan.canFork || !plan.transcript) return base;
  const text = await fsp.readFile(plan.transcript, 'utf8');
  const prompt = findTranscriptPrompt(transcriptPrompts(text), {
    promptId: snapshot.promptId,
    label: snapshot.label,
    createdAt: snapshot.createdAt,
  });
  if (!prompt) {
    return {
      ...base,
      canFork: false,
      reason: `the prompt of snapshot ${snapshot.id} was not found in ${plan.transcript}.`,
    };
  }
  const sessionId = deps.newId();
  const fork = forkClaudeTranscript(text, prompt, sessionId, deps.newId);
  if (!fork) {
    return {
      ...base,
      prompt: prompt.text,
      canFork: false,
      reason:
        'this prompt opened the session: nothing came before it. Start a new session (`claude`) and send it again.',
    };
  }
  const transcript = path.join(path.dirname(plan.transcript), `${sessionId}.jsonl`);
  if (!dryRun) {
    // 'wx': a new file, never an existing one; 0600 as Claude Code writes its own.
    await fsp.writeFile(transcript, fork.text, { flag: 'wx', mode: 0o600 }).catch((error: unknown) => {
      throw new CheckpointError('IO_FAILED', `could not write the new session ${transcript}`, {
        cause: error,
      });
    });
  }
  return {
    ...base,
    prompt: prompt.text,
    fork: { sessionId, transcript, resume: `claude --resume ${sessionId}`, messages: fork.messages },
  };
}

import type { TranscriptRecord } from '../core/transcript.js';
import { readJsonLinesBackward } from './lines.js';
import {
  includes,
  isRecord,
  type ListScan,
  type ListTranscriptState,
  parseLine,
  readListTranscript,
  tasksOf,
  typedText,
} from './list-state.js';
import { StatusPick } from './status-pick.js';

// Codex's rollout file: the JSON lines file at a hook payload's `transcript_path`
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl). Each line is a `RolloutLine`:
// `{ timestamp, type, payload }`, with `type` one of `session_meta`, `response_item` (what the model saw
// and said: messages, `function_call` / `custom_tool_call` with a `call_id`, and their `*_output`),
// `event_msg` (`user_message`, `agent_message`, `task_complete`, `exec_command_end`, `patch_apply_end`,
// and in newer versions `item_completed` with a `CommandExecution` or `FileChange` item), `compacted`,
// `turn_context`; newer versions add other types, which are skipped. See codex-rs/protocol (protocol.rs,
// models.rs, plan_tool.rs). Recorded in test/fixtures/transcripts/ from a real session of Codex 0.169.0.

/** The shell tools across Codex versions: `exec_command` (unified exec), `shell`, `shell_command`, `local_shell`. */
const SHELL_TOOLS = new Set(['exec_command', 'shell', 'shell_command', 'container.exec', 'local_shell']);
/**
 * How far back one read goes: reads after the first take only what was appended since; a first read of
 * a session that never used update_plan stops here.
 */
const MAX_BACKWARD_BYTES = 256 * 1024 * 1024;
/** A call still without its outcome this far from the end is taken as never answered (Codex died). */
const MAX_WAIT_BYTES = 8 * 1024 * 1024;
/** A line longer than this (a huge output) is read from its bytes, never parsed whole. */
const PARSE_MAX_BYTES = 4 * 1024 * 1024;

interface Outcome {
  exitCode?: number | undefined;
  failed?: boolean | undefined;
  /** The files a patch wrote, as Codex reported them (absolute paths). */
  files?: string[] | undefined;
}

/**
 * Reads what a Codex session's rollout file says, from the end backwards (see readListTranscript).
 * The task list is the latest successful update_plan call; commands are the shell tool calls with their
 * exit codes; files are those apply_patch added or changed.
 */
export function readCodexTranscript(
  file: string,
  session: string,
  previous: ListTranscriptState | null,
): { record: TranscriptRecord; state: ListTranscriptState } | null {
  return readListTranscript(file, session, previous, { scan: scanCodex, isPrompt: codexPrompt });
}

function scanCodex(
  fd: number,
  from: number,
  to: number,
  known: ReadonlySet<string>,
  continuedWorked: boolean,
): ListScan {
  const scan: ListScan = { end: from, files: [], commands: [] };
  const status = new StatusPick();
  // Outcomes come after their calls: going backwards, each is seen first and kept until its call is.
  const outcomes = new Map<string, Outcome>();
  const seenFiles = new Set<string>();
  let waitFrom: number | undefined; // the oldest call read without its outcome
  // The turn of the latest task list read back to its start: its commands and files, and those of every
  // later turn, are in; older ones are what a read passed on the way.
  let turnRead = false;
  const end = readJsonLinesBackward(fd, from, to, (line, start) => {
    if (to - start > MAX_BACKWARD_BYTES) return true;
    if (line.length > PARSE_MAX_BYTES) {
      takeHugeOutcome(line, outcomes);
      return false;
    }
    if (!includes(line, '"type":"response_item"') && !includes(line, '"type":"event_msg"')) return false;
    const entry = parseLine(line);
    const payload = isRecord(entry?.payload) ? entry.payload : undefined;
    if (!payload) return false;
    const at = typeof entry?.timestamp === 'string' ? entry.timestamp : undefined;
    if (entry?.type === 'event_msg') {
      const isTurnStart =
        payload.type === 'task_started' || payload.type === 'turn_started' || payload.type === 'user_message';
      if (isTurnStart && scan.tasks !== undefined) turnRead = true;
      if (isTurnStart) status.turnStart();
      readEvent(payload, outcomes, status, at);
    } else {
      const isPrompt = payload.type === 'message' && payload.role === 'user';
      if (isPrompt && scan.tasks !== undefined) turnRead = true;
      if (isPrompt) status.turnStart();
      if (CALL_ITEMS.has(String(payload.type))) status.work();
      const waits = readItem(payload, outcomes, scan, seenFiles, known, status, at);
      if (waits && to - start <= MAX_WAIT_BYTES) waitFrom = start;
    }
    // Complete once the status is known and the task list settled (update_plan sends the whole list).
    return turnRead && status.status !== undefined && scan.tasks !== undefined;
  });
  const picked = status.finish(continuedWorked);
  if (picked !== undefined) scan.status = picked;
  if (status.statusAt !== undefined) scan.statusAt = status.statusAt;
  scan.newestTurnWorked = status.newestTurnWorked;
  scan.end = waitFrom ?? end;
  scan.files.reverse();
  scan.commands.reverse();
  return scan;
}

/** Response items that call a tool: a turn with one did work. */
const CALL_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);

/** `at`: when the line was written (its `timestamp`). */
function readEvent(
  payload: Record<string, unknown>,
  outcomes: Map<string, Outcome>,
  status: StatusPick,
  at: string | undefined,
): void {
  switch (payload.type) {
    case 'item_completed': {
      const item = isRecord(payload.item) ? payload.item : undefined;
      if (typeof item?.id !== 'string') return;
      if (item.type === 'CommandExecution' && typeof item.exit_code === 'number')
        addOutcome(outcomes, item.id, { exitCode: item.exit_code });
      if (item.type === 'FileChange')
        addOutcome(outcomes, item.id, {
          failed: item.status !== 'completed',
          files: writtenPaths(item.changes),
        });
      if (item.type === 'AgentMessage') status.text(textOf(item.content), at);
      return;
    }
    case 'exec_command_end':
      if (typeof payload.call_id === 'string' && typeof payload.exit_code === 'number')
        addOutcome(outcomes, payload.call_id, { exitCode: payload.exit_code });
      return;
    case 'patch_apply_end':
      if (typeof payload.call_id === 'string')
        addOutcome(outcomes, payload.call_id, {
          failed: payload.success !== true,
          files: writtenPaths(payload.changes),
        });
      return;
    case 'agent_message':
      if (typeof payload.message === 'string') status.text(payload.message, at);
      return;
    case 'task_complete':
      if (typeof payload.last_agent_message === 'string') status.text(payload.last_agent_message, at);
      return;
  }
}

/** Reads one response item; returns true for a call whose outcome is not written yet. */
function readItem(
  payload: Record<string, unknown>,
  outcomes: Map<string, Outcome>,
  scan: ListScan,
  seenFiles: Set<string>,
  known: ReadonlySet<string>,
  status: StatusPick,
  at: string | undefined,
): boolean {
  const type = payload.type;
  if (type === 'message') {
    if (payload.role === 'assistant') status.text(textOf(payload.content), at);
    return false;
  }
  if (type === 'function_call_output' || type === 'custom_tool_call_output') {
    if (typeof payload.call_id === 'string')
      addOutcome(outcomes, payload.call_id, outputOutcome(payload.output));
    return false;
  }
  const callId = typeof payload.call_id === 'string' ? payload.call_id : undefined;
  if (type === 'local_shell_call') {
    const action = isRecord(payload.action) ? payload.action : {};
    return takeCommand(callId, commandText(action.command), outcomes, scan, known);
  }
  if (type !== 'function_call' && type !== 'custom_tool_call') return false;
  const name = typeof payload.name === 'string' ? payload.name : '';
  const args = type === 'custom_tool_call' ? { input: payload.input } : parseArguments(payload.arguments);
  if (name === 'update_plan') {
    if (scan.tasks !== undefined || !callId) return false;
    const outcome = outcomes.get(callId);
    if (!outcome) return true;
    if (!outcome.failed) {
      scan.tasks = tasksOf(args.plan, 'step');
      if (at !== undefined) scan.tasksAt = at;
    }
    return false;
  }
  if (name === 'apply_patch') {
    if (!callId) return false;
    const outcome = outcomes.get(callId);
    if (!outcome) return true;
    if (outcome.failed || (outcome.exitCode !== undefined && outcome.exitCode !== 0)) return false;
    const written = outcome.files ?? (typeof args.input === 'string' ? patchedPaths(args.input) : []);
    for (const file of [...written].reverse()) {
      if (seenFiles.has(file)) continue;
      seenFiles.add(file);
      scan.files.push(file);
    }
    return false;
  }
  if (SHELL_TOOLS.has(name))
    return takeCommand(callId, commandText(args.cmd ?? args.command), outcomes, scan, known);
  return false;
}

function takeCommand(
  callId: string | undefined,
  command: string | undefined,
  outcomes: Map<string, Outcome>,
  scan: ListScan,
  known: ReadonlySet<string>,
): boolean {
  if (!callId || command === undefined || known.has(callId)) return false;
  const outcome = outcomes.get(callId);
  if (!outcome) return true;
  // Refused before it ran (unknown tool, bad arguments): no exit code, no command.
  if (outcome.exitCode === undefined) return false;
  scan.commands.push({ id: callId, command, exitCode: outcome.exitCode });
  return false;
}

function addOutcome(outcomes: Map<string, Outcome>, callId: string, outcome: Outcome): void {
  const earlier = outcomes.get(callId);
  // An event (exact exit code, absolute paths) and the output the model saw describe one call: merge.
  outcomes.set(callId, {
    exitCode: earlier?.exitCode ?? outcome.exitCode,
    failed: (earlier?.failed ?? false) || (outcome.failed ?? false),
    files: earlier?.files ?? outcome.files,
  });
}

/**
 * What the output text the model saw says of a call: Codex words a command's end "Process exited with
 * code N" (unified exec) or "Exit code: N"; older versions send JSON with `metadata.exit_code`; a call
 * it refused says "unsupported call", a patch that did not apply "verification failed".
 */
function outputOutcome(output: unknown): Outcome {
  const text =
    typeof output === 'string'
      ? output
      : isRecord(output) && typeof output.content === 'string'
        ? output.content
        : '';
  const failedFlag = isRecord(output) && output.success === false;
  const head = text.slice(0, 2000);
  let exitCode: number | undefined;
  const worded = /(?:Process exited with code|^Exit code:)\s*(-?\d+)/m.exec(head);
  if (worded?.[1] !== undefined) exitCode = Number(worded[1]);
  else if (head.trimStart().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(text);
      const metadata = isRecord(parsed) && isRecord(parsed.metadata) ? parsed.metadata : undefined;
      if (typeof metadata?.exit_code === 'number') exitCode = metadata.exit_code;
    } catch {
      // not the JSON form
    }
  }
  const failed =
    failedFlag ||
    /^(?:unsupported call|failed to parse function arguments)/i.test(head) ||
    /verification failed/i.test(head);
  return { exitCode, failed };
}

/** A line too long to parse (a command's huge output): its call id and exit code from its first bytes. */
function takeHugeOutcome(line: Buffer, outcomes: Map<string, Outcome>): void {
  const head = line.toString('utf8', 0, 4096);
  const callId = /"call_id":"([^"]{1,200})"/.exec(head)?.[1];
  if (!callId) return;
  const code = /"exit_code":(-?\d+)|(?:Process exited with code|Exit code:)\s*(-?\d+)/.exec(head);
  const value = code?.[1] ?? code?.[2];
  if (value !== undefined) addOutcome(outcomes, callId, { exitCode: Number(value) });
}

function parseArguments(value: unknown): Record<string, unknown> {
  if (typeof value !== 'string') return isRecord(value) ? value : {};
  try {
    const parsed: unknown = JSON.parse(value);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** A command as the model asked for it: `bash -lc <script>` is its script; an argument array is joined. */
function commandText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (!Array.isArray(value) || !value.every((part) => typeof part === 'string') || value.length === 0)
    return undefined;
  const parts = value as string[];
  const shell = parts[0]?.split('/').pop() ?? '';
  if (parts.length === 3 && /^(?:ba|z|da)?sh$/.test(shell) && /^-l?c$/.test(parts[1] ?? '')) return parts[2];
  return parts.join(' ');
}

/** The paths of a change set that were written (added or updated, or moved to), not deleted. */
function writtenPaths(changes: unknown): string[] {
  if (!isRecord(changes)) return [];
  const paths: string[] = [];
  for (const [file, change] of Object.entries(changes)) {
    if (!isRecord(change)) continue;
    if (change.type === 'delete' || 'delete' in change) continue;
    const update = isRecord(change.update) ? change.update : change;
    const moved = typeof update.move_path === 'string' ? update.move_path : undefined;
    paths.push(moved ?? file);
  }
  return paths;
}

/** The files a patch in Codex's apply_patch format adds, updates or moves to. */
function patchedPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const match of patch.matchAll(/^\*\*\* (?:Add File|Update File|Move to): (.+)$/gm)) {
    const file = match[1]?.trim();
    if (file && !paths.includes(file)) paths.push(file);
  }
  // An updated file that moved was not written at its old path.
  for (const match of patch.matchAll(/^\*\*\* Update File: (.+)\n\*\*\* Move to: /gm)) {
    const index = paths.indexOf(match[1]?.trim() ?? '');
    if (index !== -1) paths.splice(index, 1);
  }
  return paths;
}

function textOf(content: unknown): string | undefined {
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .filter((part) => isRecord(part) && typeof part.text === 'string' && part.type !== 'input_text')
    .map((part) => (part as { text: string }).text);
  const text = texts.join('\n').trim();
  return text === '' ? undefined : text;
}

/**
 * The session's first real prompt: the `user_message` event (or newer `UserMessage` item) Codex writes
 * for what the person typed, or a user message the model saw, without the context Codex sends as user
 * text (`<environment_context>`, `<user_instructions>`, AGENTS.md).
 */
function codexPrompt(line: Buffer): string | undefined {
  if (!includes(line, '"user"') && !includes(line, '"user_message"') && !includes(line, '"UserMessage"'))
    return undefined;
  if (line.length > PARSE_MAX_BYTES) return undefined;
  const payload = parseLine(line)?.payload;
  if (!isRecord(payload)) return undefined;
  let text: string | undefined;
  if (payload.type === 'user_message' && typeof payload.message === 'string') text = payload.message;
  else if (payload.type === 'message' && payload.role === 'user' && Array.isArray(payload.content))
    text = payload.content
      .filter((part) => isRecord(part) && part.type === 'input_text' && typeof part.text === 'string')
      .map((part) => (part as { text: string }).text)
      .join('\n');
  else if (
    payload.type === 'item_completed' &&
    isRecord(payload.item) &&
    payload.item.type === 'UserMessage'
  ) {
    const content = payload.item.content;
    if (Array.isArray(content))
      text = content
        .filter((part) => isRecord(part) && typeof part.text === 'string')
        .map((part) => (part as { text: string }).text)
        .join('\n');
  }
  if (text === undefined || text.trimStart().startsWith('# AGENTS.md instructions')) return undefined;
  return typedText(text);
}

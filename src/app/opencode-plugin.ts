/**
 * The OpenCode plugin `setup opencode` writes. OpenCode has no hook files: a plugin in its plugins folder
 * is loaded into the agent (under Bun) at startup. Ours stays small and dependency-free: it turns
 * OpenCode's events into Claude-shaped hook payloads and runs this tool's hook entry with Node, so that
 * every agent goes through the same engine.
 *
 * - a session's first model request: SessionStart (`startup`, or `resume` for a session this process did
 *   not create), and the brief is added to the system prompt of every request of that session;
 * - every user message: UserPromptSubmit (the snapshot before the agent acts), awaited;
 * - a `bash` tool call: PreToolUse before it runs (a snapshot when it may destroy work; awaited; a call
 *   never stopped: a warning of what the snapshot cannot hold goes with the call's output), and PostToolUse after, with the exit code OpenCode keeps in the call's metadata;
 * - before compaction: PreCompact; after it (`session.compacted`): the next request brings a fresh brief;
 * - the end of a turn (`session.idle`): Stop, with the session's messages and todo list (read through the
 *   SDK client OpenCode gives plugins, trimmed) as `transcript`, which fills what the model did not save.
 */
export function openCodePlugin(hookPath: string): string {
  return `// claude-checkpoint: added by \`claude-checkpoint setup opencode\`; remove with \`claude-checkpoint setup opencode --uninstall\`.
import { spawn } from 'node:child_process';

const HOOK = ${JSON.stringify(hookPath)};
const TIMEOUT_MS = { SessionStart: 15000, UserPromptSubmit: 15000, PreCompact: 30000, PostToolUse: 10000, PreToolUse: 15000, Stop: 15000 };
/** What of a session goes to the hook: its first messages (the goal) and its latest (where things stand). */
const HEAD_MESSAGES = 20;
const TAIL_MESSAGES = 300;
const TEXT_CHARS = 4000;

/** Runs one hook; resolves with the context it returned, or '' (a hook never breaks a session). */
function runHook(event, directory, payload) {
  return runHookOutput(event, directory, payload).then((output) => output.hookSpecificOutput?.additionalContext ?? '');
}

/** Runs one hook; resolves with its output, parsed, or {} (a hook never breaks a session). */
function runHookOutput(event, directory, payload) {
  return new Promise((resolve) => {
    let out = '';
    let child;
    try {
      child = spawn('node', [HOOK, event, '--agent', 'opencode'], { cwd: directory, stdio: ['pipe', 'pipe', 'ignore'] });
    } catch {
      resolve({});
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS[event]);
    child.on('error', () => {
      clearTimeout(timer);
      resolve({});
    });
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.on('close', () => {
      clearTimeout(timer);
      try {
        const output = JSON.parse(out);
        resolve(output && typeof output === 'object' ? output : {});
      } catch {
        resolve({});
      }
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify({ hook_event_name: event, cwd: directory, ...payload }));
  });
}

/** A tool part with only what the transcript reader uses: no outputs, no file contents. */
function trimmedPart(part) {
  // Cut never inside a surrogate pair: half an emoji is no character at all.
  if (part.type === 'text') return { type: 'text', text: String(part.text ?? '').slice(0, TEXT_CHARS).replace(/[\\ud800-\\udbff]$/, ''), synthetic: part.synthetic === true };
  if (part.type !== 'tool') return undefined;
  const input = part.state?.input ?? {};
  return {
    type: 'tool',
    tool: part.tool,
    // The reader takes each shell call once, by its id: without it a call was read again at every turn.
    callID: part.callID,
    state: {
      status: part.state?.status,
      input: { command: input.command, description: input.description, filePath: input.filePath },
      metadata: { exit: part.state?.metadata?.exit },
    },
  };
}

/** The session's messages and todo list, trimmed, for the transcript reader; undefined when they cannot be read. */
async function sessionTranscript(client, sessionID) {
  if (!client?.session || !sessionID) return undefined;
  try {
    // A sub-agent's session (the task tool's) is not the one the person works in.
    const session = await client.session.get({ path: { id: sessionID } }).catch(() => undefined);
    if (session?.data?.parentID) return undefined;
    const [messages, todos] = await Promise.all([
      client.session.messages({ path: { id: sessionID } }),
      client.session.todo({ path: { id: sessionID } }),
    ]);
    const all = Array.isArray(messages?.data) ? messages.data : [];
    const kept = all.length > HEAD_MESSAGES + TAIL_MESSAGES ? [...all.slice(0, HEAD_MESSAGES), ...all.slice(-TAIL_MESSAGES)] : all;
    return {
      messages: kept.map((message) => ({
        info: { role: message.info?.role },
        parts: (message.parts ?? []).map(trimmedPart).filter(Boolean),
      })),
      todos: Array.isArray(todos?.data) ? todos.data.map((todo) => ({ content: todo.content, status: todo.status })) : [],
    };
  } catch {
    return undefined;
  }
}

export const ClaudeCheckpoint = async ({ directory, client }) => {
  const created = new Set();
  const compacted = new Set();
  const briefs = new Map();
  const children = new Map();
  /** A pre-command warning by the call it came before, until the call's output can carry it. */
  const warnings = new Map();
  /** Whether a session is a sub-agent's: the task tool prompts a session it creates with a parentID. */
  const isSubAgent = (sessionID) => {
    if (!client?.session || !sessionID) return Promise.resolve(false);
    if (!children.has(sessionID))
      children.set(sessionID, client.session.get({ path: { id: sessionID } }).then((session) => Boolean(session?.data?.parentID), () => false));
    return children.get(sessionID);
  };
  return {
    event: async ({ event }) => {
      const sessionID = event.properties?.sessionID ?? event.properties?.info?.id;
      if (event.type === 'session.created' && sessionID) created.add(sessionID);
      if (event.type === 'session.compacted' && sessionID) {
        compacted.add(sessionID);
        briefs.delete(sessionID);
      }
      if (event.type === 'session.idle' && sessionID) {
        const transcript = await sessionTranscript(client, sessionID);
        if (transcript) await runHook('Stop', directory, { session_id: sessionID, transcript });
      }
    },
    'experimental.chat.system.transform': async (input, output) => {
      const sessionID = input.sessionID;
      if (!sessionID) return;
      if (!briefs.has(sessionID)) {
        const source = compacted.has(sessionID) ? 'compact' : created.has(sessionID) ? 'startup' : 'resume';
        briefs.set(sessionID, runHook('SessionStart', directory, { session_id: sessionID, source }));
      }
      const brief = await briefs.get(sessionID);
      if (brief) output.system.push(brief);
    },
    'chat.message': async (input, output) => {
      // The task tool's prompt to its sub-agent fires this too: it is not the person's prompt, and its
      // session is not the one they work in (rewind's latest prompt would be the sub-agent's).
      if (await isSubAgent(input.sessionID)) return;
      const prompt = (output.parts ?? [])
        .filter((part) => part.type === 'text' && !part.synthetic)
        .map((part) => part.text)
        .join('\\n');
      // The message's id names the prompt: the same message delivered twice is one prompt.
      const promptId = output.message?.id ?? input.messageID;
      await runHook('UserPromptSubmit', directory, { session_id: input.sessionID, prompt, ...(promptId ? { prompt_id: promptId } : {}) });
    },
    'tool.execute.before': async (input, output) => {
      if (input.tool !== 'bash') return;
      const decided = await runHookOutput('PreToolUse', directory, {
        session_id: input.sessionID,
        tool_name: 'Bash',
        tool_use_id: input.callID,
        tool_input: { command: output.args?.command ?? '', workdir: output.args?.workdir },
      });
      // A warning (what the snapshot cannot hold, which the command may destroy), never a stop: a plugin
      // cannot add context before a call, so it goes with the call's output, which the model receives and
      // \`opencode run\` prints.
      const decision = decided.hookSpecificOutput;
      if (decision?.additionalContext && input.callID) warnings.set(input.callID, String(decision.additionalContext));
    },
    'tool.execute.after': async (input, output) => {
      if (input.tool !== 'bash') return;
      const exitCode = typeof output.metadata?.exit === 'number' ? output.metadata.exit : undefined;
      const text = typeof output.output === 'string' ? output.output : '';
      const response =
        exitCode === undefined ? text : { exit_code: exitCode, ...(exitCode === 0 ? { stdout: text } : { output: text }) };
      await runHook('PostToolUse', directory, {
        session_id: input.sessionID,
        tool_name: 'Bash',
        tool_use_id: input.callID,
        tool_input: { command: input.args?.command ?? '', description: input.args?.description },
        tool_response: response,
      });
      const warning = warnings.get(input.callID);
      warnings.delete(input.callID);
      if (warning && typeof output.output === 'string') output.output = \`\${output.output}\\n\\n[claude-checkpoint] \${warning}\`;
    },
    'experimental.session.compacting': async (input) => {
      const transcript = await sessionTranscript(client, input.sessionID);
      await runHook('PreCompact', directory, { session_id: input.sessionID, trigger: 'auto', ...(transcript ? { transcript } : {}) });
    },
  };
};
`;
}

import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pluginSessionSetup,
  pluginTool,
  repoRoot,
  runClaude,
  runClaudeConversation,
  runNode,
} from '../helpers/claude-code.js';
import { type FakeModel, type LoggedRequest, type Plan, received } from '../helpers/fake-model.js';

/**
 * Real Claude Code sessions with the plugin installed from this working tree, driven by a scripted
 * stand-in for the Messages API. Every assertion is on what the model received (the logged requests)
 * or on what is on disk, never on what our server returned to Claude Code.
 */

const LOAD = pluginTool('load_session_checkpoint');
const SAVE = pluginTool('save_session_checkpoint');
const FAILING_COMMAND = "echo 'FAIL src/app.test.ts: expected 200, got 500' && exit 3";

const plan: Plan = (prompt) => {
  if (prompt === 'Start the OAuth work')
    return [
      {
        tool: SAVE,
        input: {
          goal: 'Add GitHub OAuth login',
          tasks: [
            { description: 'Callback route', status: 'done' },
            { description: 'Session cookie', status: 'in_progress' },
          ],
          nextSteps: ['Fix the SameSite flag in src/app.ts'],
          decisions: ['Use iron-session, not express-session'],
        },
      },
      { tool: 'Bash', input: { command: FAILING_COMMAND, description: 'Run the auth tests' } },
      { text: 'The auth tests fail; checkpoint saved.' },
    ];
  if (prompt === 'Resume the work') return [{ tool: LOAD, input: {} }, { text: 'Resumed.' }];
  return [{ text: 'Noted.' }];
};

/** The content of the tool result the model received for its call of `tool`. */
function toolResultFor(requests: readonly LoggedRequest[], tool: string): string | undefined {
  for (const request of requests) {
    const messages = (request.body?.messages ?? []) as Array<{ content: unknown }>;
    const blocks = messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    const call = blocks.find((block) => block.type === 'tool_use' && block.name === tool);
    const result =
      call && blocks.find((block) => block.type === 'tool_result' && block.tool_use_id === call.id);
    if (result) return typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
  }
  return undefined;
}

const modelRequests = (requests: readonly LoggedRequest[]) =>
  requests.filter(
    (request) => request.url.startsWith('/v1/messages') && !request.url.includes('count_tokens'),
  );

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let sessionId = '';

/** Runs `work` and returns the model requests it caused. */
async function during<Run extends { code: number; stdout: string; stderr: string }>(
  work: () => Promise<Run>,
) {
  const before = model.requests.length;
  const run = await work();
  expect(run.code, `claude exited ${run.code}: ${run.stderr}${run.stdout.slice(-2000)}`).toBe(0);
  return { run, requests: modelRequests(model.requests.slice(before)) };
}

beforeAll(async () => {
  // The model takes a while to answer, as a real one does; the Bash hooks run in the background meanwhile.
  ({ model, home, project, env } = await pluginSessionSetup(plan, {
    'src/app.ts': 'v1\n',
    'src/util.ts': 'u1\n',
  }));
});

afterAll(async () => {
  await model?.close();
});

describe('a real Claude Code session with the plugin and a scripted model', () => {
  it('session 1: the model saves through the MCP tool, a failing Bash command is recorded with its exit code, the prompt is snapshotted', async () => {
    const { run } = await during(() =>
      runClaude(
        [
          '-p',
          'Start the OAuth work',
          '--output-format',
          'json',
          '--allowedTools',
          `${SAVE} Bash`,
          '--debug-file',
          path.join(home, 'session-1.log'),
        ],
        { cwd: project, env },
      ),
    );
    // Claude Code did not wait for the Bash hook: it ran it in the background, in exec form.
    expect(readFileSync(path.join(home, 'session-1.log'), 'utf8')).toMatch(
      /Hooks: PostToolUseFailure:Bash \[node \S*plugin\/dist\/hook\.cjs PostToolUseFailure\] \(plugin session-checkpoint@tenlean\) moved to the background/,
    );
    sessionId = (JSON.parse(run.stdout) as { session_id: string }).session_id;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);

    // The Bash hooks run in the background (async): Claude Code does not wait for them.
    const checkpointFile = path.join(project, '.claude-checkpoint');
    const deadline = Date.now() + 10_000;
    while (
      JSON.parse(readFileSync(checkpointFile, 'utf8')).recentCommands.length === 0 &&
      Date.now() < deadline
    )
      await new Promise((resolve) => setTimeout(resolve, 50));
    const saved = JSON.parse(readFileSync(checkpointFile, 'utf8'));
    expect(saved.goal.primary).toBe('Add GitHub OAuth login');
    // The plugin's MCP server was up (the model had called it): the Bash hook handed it the event, so the
    // hook process never loaded the bundle, and left no code cache for its event.
    const cacheDir = path.join(env.CHECKPOINT_STORE_DIR as string, 'cache');
    const caches = existsSync(cacheDir) ? readdirSync(cacheDir) : [];
    expect(caches.filter((name) => name.startsWith('hook-PostToolUseFailure-'))).toEqual([]);
    expect(saved.recentCommands).toEqual([
      expect.objectContaining({
        command: FAILING_COMMAND,
        exitCode: 3,
        note: 'Run the auth tests; output: FAIL src/app.test.ts: expected 200, got 500',
      }),
    ]);
    const listed = JSON.parse(
      await runNode([path.join(repoRoot, 'plugin/dist/cli.mjs'), 'list', '--json'], project, env),
    );
    expect(listed.snapshots).toEqual(
      expect.arrayContaining([expect.objectContaining({ trigger: 'prompt', label: 'Start the OAuth work' })]),
    );
  });

  it('--resume: the load_session_checkpoint result the model receives holds the brief, with the edited file flagged', async () => {
    writeFileSync(path.join(project, 'src/util.ts'), 'u2: edited in another editor\n');
    const { requests } = await during(() =>
      runClaude(['-p', 'Resume the work', '--resume', sessionId, '--allowedTools', LOAD], {
        cwd: project,
        env,
      }),
    );
    const result = toolResultFor(requests, LOAD);
    expect(result).toBeDefined();
    for (const part of [
      'Add GitHub OAuth login',
      '[x] Callback route',
      '[~] Session cookie',
      '1. Fix the SameSite flag in src/app.ts',
      'Use iron-session, not express-session',
      '✗ exit 3',
      're-read before editing: `src/util.ts`',
    ])
      expect(result).toContain(part);
    // The hook brought the brief back on resume too, before the model asked for it.
    expect(received(requests[0] as LoggedRequest)).toContain(
      'Session checkpoint restored automatically after session resume',
    );
  });

  it('--continue: the brief arrives with the first request', async () => {
    const { requests } = await during(() =>
      runClaude(['-p', 'What next?', '--continue'], { cwd: project, env }),
    );
    const first = received(requests[0] as LoggedRequest);
    expect(first).toContain('## Goal\nAdd GitHub OAuth login');
    expect(first).toContain('re-read before editing: `src/util.ts`');
  });

  it('/clear: the brief arrives with the next prompt after the context is cleared', async () => {
    const { run, requests } = await during(() =>
      runClaudeConversation([], ['Hello', '/clear', 'After the clear'], { cwd: project, env }),
    );
    expect(run.results).toBe(3);
    const afterClear = requests.filter((request) => received(request).includes('After the clear'));
    expect(afterClear.length).toBeGreaterThan(0);
    const text = received(afterClear[0] as LoggedRequest);
    expect(text).toContain('Session checkpoint restored automatically after /clear');
    expect(text).toContain('## Next steps\n1. Fix the SameSite flag in src/app.ts');
    expect(text).not.toContain('Hello');
  });

  it('/compact: the brief arrives after compaction, and the file edited before it is still flagged', async () => {
    const { run, requests } = await during(() =>
      runClaudeConversation([], ['Hello', '/compact', 'After the compaction'], { cwd: project, env }),
    );
    expect(run.results).toBe(3);
    const afterCompact = requests.filter((request) => received(request).includes('After the compaction'));
    expect(afterCompact.length).toBeGreaterThan(0);
    const text = received(afterCompact[0] as LoggedRequest);
    expect(text).toContain('Session checkpoint restored automatically after the conversation was compacted');
    expect(text).toContain('re-read before editing: `src/util.ts`');
    expect(text).toMatch(/Flagged since .* They stay flagged until you save a checkpoint/);
    expect(text).not.toContain('can be trusted as is');
    // PreCompact refreshed the facts: the file's new content is recorded, and still flagged.
    const saved = JSON.parse(readFileSync(path.join(project, '.claude-checkpoint'), 'utf8'));
    expect(saved.meta.flagged.paths).toEqual(['src/util.ts']);
  });
});

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectBriefFromTranscript,
  expectFilledFromTranscript,
  expectLeftOutTurn,
  expectSecretNowhere,
  LEFT_OUT_TURN,
  leftOutSteps,
  NEVER_SAVES,
  writeBigFile,
} from '../helpers/agent-cli.js';
import {
  expectResumedThroughLoad,
  FAILING,
  runProcess,
  saveAndEditBetweenSessions,
  sessionPlan,
} from '../helpers/agent-session.js';
import { repoRoot } from '../helpers/claude-code.js';
import { type FakeModel, type LoggedRequest, type Plan, startFakeModel } from '../helpers/fake-model.js';
import { createRepo, freePort, tempDir } from '../helpers/fixtures.js';

/**
 * Real OpenCode sessions (`opencode run`), set up by `claude-checkpoint setup opencode --project` (our
 * plugin in .opencode/plugins, the server in the project's opencode.jsonc), driven by a scripted stand-in
 * for the Responses API behind a custom provider. Assertions are on what the model received and on disk.
 */

const OPENCODE = path.join(repoRoot, '.cache/agents/opencode/node_modules/.bin/opencode');
const CLI = path.join(repoRoot, 'dist/cli.js');

// `opencode run` hands a message with spaces to the model in double quotes.
const unquoted = (quoted: string) => quoted.replace(/^"(.*)"$/s, '$1');
const sessionSteps = sessionPlan(
  { tool: 'bash', input: { command: FAILING, description: 'Run the auth tests' } },
  unquoted,
);
const plan: Plan = (prompt, callable) =>
  unquoted(prompt) === LEFT_OUT_TURN.prompt
    ? leftOutSteps((command) => ({
        tool: 'bash',
        input: { command, description: 'Tidy up' },
      }))
    : sessionSteps(prompt, callable);

let model: FakeModel;
let server: ChildProcess | undefined;
let project: string;
let env: NodeJS.ProcessEnv;
let configBefore: string;
const configFile = () => path.join(project, 'opencode.jsonc');

async function opencode(prompt: string, extra: string[] = []) {
  return (await opencodeRun(prompt, extra)).requests;
}

/** opencode, with what it printed (what the person sees). */
async function opencodeRun(prompt: string, extra: string[] = []) {
  const before = model.requests.length;
  // OpenCode starts slowly on a loaded machine (a minute and more before its first request).
  const result = await runProcess(OPENCODE, ['run', ...extra, prompt], {
    cwd: project,
    env,
    timeoutMs: 240_000,
  });
  expect(result.code, `opencode exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  // Only the turns of the session (OpenCode also asks for a title, with no tools offered).
  const requests = model.requests
    .slice(before)
    .filter((request) => request.url.includes('/responses') && request.raw.includes('"tools"'));
  return { requests, stdout: result.stdout, stderr: result.stderr };
}

beforeAll(async () => {
  if (!existsSync(OPENCODE))
    throw new Error('OpenCode is not installed: run `npm run test:agents`, which installs it first');
  model = await startFakeModel(plan, { format: 'responses', latencyMs: 200 });
  project = createRepo({ committed: { 'src/app.ts': 'v1\n', 'src/util.ts': 'u1\n' } });
  env = {
    PATH: process.env.PATH ?? '',
    HOME: tempDir('opencode-home-'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    // OpenCode runs `npm install` of its plugin package in every fresh HOME: one npm cache for every
    // session of the suite (kept under .cache/), so only the first one downloads it.
    npm_config_cache: path.join(repoRoot, '.cache/agents/opencode/npm-cache'),
    npm_config_prefer_offline: 'true',
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
    ...LEFT_OUT_TURN.env,
  };
  // The user's own configuration, with comments, a compact object and a server of their own, which
  // setup must keep as they are.
  configBefore = `{
  // mine
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "stub": {
      "npm": "@ai-sdk/openai",
      "name": "Stand-in",
      "options": { "baseURL": "${model.url}/v1", "apiKey": "fake-key-for-tests" },
      "models": { "m": { "name": "m", "tool_call": true } }
    }
  },
  "model": "stub/m",
  "permission": { "bash": "allow", "edit": "allow" },
  "mcp": { "other": { "type": "local", "command": ["other-server"], "enabled": false } }
}
`;
  writeFileSync(configFile(), configBefore);
  const setup = await runProcess(process.execPath, [CLI, 'setup', 'opencode', '--project'], {
    cwd: project,
    env,
  });
  expect(setup.code, setup.stderr).toBe(0);
});

afterAll(async () => {
  // Also when a test timed out before its own clean-up: a server left behind keeps a core busy.
  server?.kill('SIGKILL');
  await model?.close();
});

describe('a real OpenCode session, set up by `setup opencode`, with a scripted model', {
  timeout: 300_000,
}, () => {
  it("setup keeps the user's own configuration as written, and adds the server and the plugin", () => {
    const config = readFileSync(configFile(), 'utf8');
    expect(config.startsWith(configBefore.slice(0, configBefore.indexOf('"mcp"')))).toBe(true);
    expect(config).toContain('"other-server"');
    expect(config).toMatch(/"claude-checkpoint": \{\n\s+"type": "local"/);
    const plugin = readFileSync(path.join(project, '.opencode/plugins/claude-checkpoint.js'), 'utf8');
    expect(plugin).toContain(JSON.stringify(path.join(repoRoot, 'plugin/dist/hook.cjs')));
  });

  it('session 1: the prompt is snapshotted, and the failing shell command is recorded with its exit code', async () => {
    await opencode('Run the auth tests');
    const list = await runProcess(process.execPath, [CLI, 'list', '--json'], { cwd: project, env });
    expect(JSON.parse(list.stdout).snapshots).toEqual(
      expect.arrayContaining([expect.objectContaining({ trigger: 'prompt', label: '"Run the auth tests"' })]),
    );
    const saved = JSON.parse(readFileSync(path.join(project, '.claude-checkpoint'), 'utf8'));
    expect(saved.recentCommands).toEqual([
      expect.objectContaining({
        command: FAILING,
        exitCode: 3,
        note: 'Run the auth tests; output: FAIL auth.test.ts',
      }),
    ]);
  });

  it('session 2, a fresh start: the load tool result the model receives has the brief, with the edited file flagged', async () => {
    await saveAndEditBetweenSessions(CLI, project, env);
    const requests = await opencode('Resume the work');
    expectResumedThroughLoad(
      requests.map((request) => request.raw),
      'function_call_output',
    );
  });

  it('session 3, continued: the brief arrives by itself in the system prompt, with the edited file flagged', async () => {
    const requests = await opencode('What next?', ['--continue']);
    const first = (requests[0] as LoggedRequest).raw;
    expect(first).toContain('Session checkpoint restored automatically after session resume');
    expect(first).toContain('re-read before editing: `src/util.ts`');
  });

  it('compaction (what /compact runs, through the OpenCode server): facts refreshed before, the brief back after, the edit still flagged', async () => {
    const port = await freePort();
    server = spawn(OPENCODE, ['serve', '--port', String(port), '--hostname', '127.0.0.1'], {
      cwd: project,
      env,
      stdio: 'ignore',
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      // Up once it answers a read; the first requests of a server still starting can hang.
      for (let tries = 0; ; tries++) {
        const ready = await fetch(`${base}/session`, { signal: AbortSignal.timeout(2_000) }).then(
          (response) => response.ok,
          () => false,
        );
        if (ready) break;
        if (tries > 150) throw new Error('opencode serve did not start');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const api = async (route: string, body: unknown) => {
        const response = await fetch(`${base}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
        expect(response.status, route).toBe(200);
        return (await response.json()) as { id?: string };
      };
      const session = await api('/session', {});
      await api(`/session/${session.id}/message`, { parts: [{ type: 'text', text: 'Carry on' }] });
      writeFileSync(path.join(project, 'src/app.ts'), 'v3: edited while the session ran\n');
      const before = model.requests.length;
      await api(`/session/${session.id}/summarize`, { providerID: 'stub', modelID: 'm' });
      await api(`/session/${session.id}/message`, { parts: [{ type: 'text', text: 'Where were we?' }] });
      const after = model.requests.slice(before).map((request) => request.raw);
      const summary = after.findIndex((text) => text.includes('summar'));
      const next = after.slice(summary + 1).find((text) => text.includes('Where were we?'));
      expect(next).toContain(
        'Session checkpoint restored automatically after the conversation was compacted',
      );
      // The edit came after the prompt's turn: flagged as changed after the checkpoint, or, when the end
      // of that turn (session.idle) saved the checkpoint after it, among the files the checkpoint lists.
      expect(next).toMatch(/re-read before editing: `src\/app\.ts`|- src\/app\.ts \(M\)/);
      // PreCompact ran first: it took its snapshot, before the next prompt's (which rewind lists even on
      // an unchanged tree).
      const list = await runProcess(process.execPath, [CLI, 'list', '--json'], { cwd: project, env });
      const triggers = JSON.parse(list.stdout).snapshots.map(
        (snapshot: { trigger: string }) => snapshot.trigger,
      );
      // The end of the last turn (session.idle) may be marked by now, or not yet. Before the prompt:
      // the compaction's snapshot, or, when the end of the turn before it already held the same tree
      // (the edit above came before session.idle), that turn end, which the compaction does not repeat.
      const newest = triggers.slice(triggers.indexOf('prompt'));
      expect(newest[0]).toBe('prompt');
      expect(['pre-compact', 'turn-end']).toContain(newest[1]);
      expect(next).toMatch(/Latest snapshot `[0-9-a-f]+` \((prompt|pre-compact|turn-end)/);
    } finally {
      server.kill('SIGKILL');
    }
  });

  it("`rm big.bin` of a file over the size cap runs, and its snapshot brings it back; the whole tree's warning comes with the output", async () => {
    const big = writeBigFile(project);
    const run = await opencodeRun(LEFT_OUT_TURN.prompt);
    // The whole tree's warning comes with the output of `git reset --hard`: the model receives it.
    await expectLeftOutTurn(project, env, run.requests, big, { warnedOfWholeTree: true });
    // The person: the same, in what `opencode run` prints (in colour, NO_COLOR or not); no failed call.
    const printed = stripVTControlCharacters(run.stderr);
    expect(printed).not.toContain('rm big.bin failed');
    expect(printed).toContain('[claude-checkpoint] The pre-command snapshot does not hold `keep.bin`');
  });

  it('setup --uninstall gives the configuration back byte for byte and takes the plugin away', async () => {
    const result = await runProcess(
      process.execPath,
      [CLI, 'setup', 'opencode', '--project', '--uninstall'],
      {
        cwd: project,
        env,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(configFile(), 'utf8')).toBe(configBefore);
    expect(existsSync(path.join(project, '.opencode/plugins/claude-checkpoint.js'))).toBe(false);
  });
});

/**
 * Sessions whose scripted model keeps its list with OpenCode's `todowrite`, runs a command and never
 * calls the save tool: at the end of the turn (`session.idle`) our plugin hands the session's messages
 * and todos, read through OpenCode's SDK client, to the Stop hook, and the next session's model receives
 * what was derived.
 */
describe('a real OpenCode session whose model never saves', { timeout: 300_000 }, () => {
  const { token: TOKEN, prompt: PROMPT, status: STATUS } = NEVER_SAVES;
  const todos = (statuses: string[]) => ({
    todos: ['Write the route', 'Test the route', 'Document it'].map((content, index) => ({
      id: String(index + 1),
      content,
      status: statuses[index],
      priority: 'high',
    })),
  });
  const todoPlan: Plan = (asked, callable) => {
    const prompt = asked.replace(/^"(.*)"$/s, '$1');
    if (prompt === PROMPT)
      return [
        { tool: 'todowrite', input: todos(['in_progress', 'pending', 'pending']) },
        { tool: 'bash', input: { command: "echo 'health: 200'", description: 'Check the route' } },
        { tool: 'todowrite', input: todos(['completed', 'in_progress', 'pending']) },
        { text: STATUS },
      ];
    if (prompt === 'Where were we?') {
      const load = [...callable].find((name) => name.endsWith('load_session_checkpoint'));
      return load ? [{ tool: load, input: {} }, { text: 'Resumed.' }] : [{ text: 'No load tool offered.' }];
    }
    return [{ text: 'Noted.' }];
  };
  let todoModel: FakeModel;
  let todoEnv: NodeJS.ProcessEnv;
  let root: string;
  const ask = async (prompt: string) => {
    const before = todoModel.requests.length;
    // OpenCode starts slowly on a loaded machine (a minute and more before its first request).
    const result = await runProcess(OPENCODE, ['run', prompt], {
      cwd: root,
      env: todoEnv,
      timeoutMs: 240_000,
    });
    expect(result.code, `opencode exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
    return todoModel.requests
      .slice(before)
      .filter((request) => request.url.includes('/responses') && request.raw.includes('"tools"'));
  };

  beforeAll(async () => {
    // OpenCode builds a message's text from the streamed deltas.
    todoModel = await startFakeModel(todoPlan, { format: 'responses', latencyMs: 100, textDeltas: true });
    root = createRepo({ committed: { 'src/app.ts': 'v1\n' } });
    todoEnv = { ...env, HOME: tempDir('opencode-home-'), CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
    writeFileSync(path.join(root, 'opencode.jsonc'), configBefore.replace(model.url, todoModel.url));
    const setup = await runProcess(process.execPath, [CLI, 'setup', 'opencode', '--project'], {
      cwd: root,
      env: todoEnv,
    });
    expect(setup.code, setup.stderr).toBe(0);
  });

  afterAll(async () => {
    await todoModel?.close();
  });

  it('the Stop hook records the goal, the todos with their statuses, the status and the command', {
    timeout: 300_000,
  }, async () => {
    await ask(PROMPT);
    const file = path.join(root, '.claude-checkpoint');
    // The plugin's Stop hook may still be finishing as `opencode run` returns.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
      if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).summary) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expectFilledFromTranscript(JSON.parse(readFileSync(file, 'utf8')), [
      'Write the route',
      'Test the route',
      'Document it',
    ]);
    expectSecretNowhere(root, todoEnv.CHECKPOINT_STORE_DIR as string, TOKEN);
  });

  it('a new session: the model receives the goal, every task with its status and the status sentence', async () => {
    const requests = await ask('Where were we?');
    expectBriefFromTranscript(requests, ['Write the route', 'Test the route', 'Document it']);
  });
});

import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { runProcess } from './agent-session.js';
import { repoRoot } from './claude-code.js';
import type { FakeModel, LoggedRequest, PlannedStep } from './fake-model.js';
import { tempDir } from './fixtures.js';

/**
 * The real agent CLIs the agent tests drive (installed by `npm run test:agents` under .cache/agents), how
 * each is pointed at the stand-in model, and how one prompt is sent to it.
 */

export type AgentName = 'codex' | 'copilot' | 'gemini';

/** The checkpoint CLI, as the npm package's ESM entry runs it. */
export const CHECKPOINT_CLI = path.join(repoRoot, 'dist/cli.js');

const TITLES: Record<AgentName, string> = { codex: 'Codex', copilot: 'Copilot CLI', gemini: 'Gemini CLI' };

/** The agent's executable; a clear error when it is not installed. */
export function agentBinary(agent: AgentName): string {
  const bin = path.join(repoRoot, '.cache/agents', agent, 'node_modules/.bin', agent);
  if (!existsSync(bin))
    throw new Error(
      `${TITLES[agent]} is not installed: run \`npm run test:agents\`, which installs it first`,
    );
  return bin;
}

/**
 * The environment of a session that talks to the stand-in model only: a throwaway HOME and store, no
 * colour. Codex reads its provider from `~/.codex/config.toml` (see codexProviderConfig); the others
 * from here. `extra` adds or overrides variables.
 */
export function agentEnv(
  agent: AgentName,
  home: string,
  model: FakeModel,
  extra: NodeJS.ProcessEnv = {},
): NodeJS.ProcessEnv {
  const own: Record<AgentName, NodeJS.ProcessEnv> = {
    codex: { FAKE_MODEL_KEY: 'fake-key-for-tests' },
    copilot: {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
      COPILOT_PROVIDER_WIRE_API: 'responses',
      COPILOT_PROVIDER_API_KEY: 'fake-key-for-tests',
      COPILOT_MODEL: 'fake-model',
      // Copilot CLI runs hooks and MCP servers only in a trusted folder: this trusts it, in place of the user.
      COPILOT_ALLOW_ALL: 'true',
      COPILOT_AUTO_UPDATE: 'false',
    },
    gemini: {
      GEMINI_API_KEY: 'fake-key-for-tests',
      GOOGLE_GEMINI_BASE_URL: model.url,
      GEMINI_CLI_NO_RELAUNCH: 'true',
    },
  };
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    ...own[agent],
    CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    NO_COLOR: '1',
    ...extra,
  };
}

/**
 * Codex's config.toml with the stand-in model as its provider: `settings` are top-level lines, `tables`
 * more tables after the provider's.
 */
export function codexProviderConfig(model: FakeModel, settings = '', tables = ''): string {
  return `model = "fake-model"
model_provider = "fake"
${settings}
[model_providers.fake]
name = "fake"
base_url = "${model.url}/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_KEY"
${tables}`;
}

/** The command line of one prompt, in print mode, with the agent's own approvals and trust bypassed. */
function promptArgs(agent: AgentName, prompt: string, extra: string[]): string[] {
  switch (agent) {
    case 'codex':
      return [
        'exec',
        ...extra,
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        '--dangerously-bypass-hook-trust',
        prompt,
      ];
    case 'copilot':
      return [...extra, '-p', prompt];
    case 'gemini':
      return ['-p', prompt, '--yolo', '--skip-trust', ...extra];
  }
}

/** Which of the stand-in model's requests are the session's turns. */
const isTurn: Record<AgentName, (request: LoggedRequest) => boolean> = {
  codex: (request) => request.url.includes('/responses'),
  copilot: (request) => request.url.includes('/responses'),
  gemini: (request) => request.url.includes('streamGenerateContent'),
};

/**
 * Sends one prompt (`extra`: resume flags and the like), expects the agent to exit 0, and returns the
 * requests the model received for it.
 */
export async function promptAgent(
  agent: AgentName,
  session: { cwd: string; env: NodeJS.ProcessEnv; model: FakeModel },
  prompt: string,
  extra: string[] = [],
): Promise<LoggedRequest[]> {
  return (await promptAgentRun(agent, session, prompt, extra)).requests;
}

/** promptAgent, with what the agent printed (what the person sees) besides the model's requests. */
export async function promptAgentRun(
  agent: AgentName,
  session: { cwd: string; env: NodeJS.ProcessEnv; model: FakeModel },
  prompt: string,
  extra: string[] = [],
): Promise<{ requests: LoggedRequest[]; stdout: string; stderr: string }> {
  const before = session.model.requests.length;
  const result = await runProcess(agentBinary(agent), promptArgs(agent, prompt, extra), {
    cwd: session.cwd,
    env: session.env,
    // Gemini CLI waits for stdin when it is a pipe left open; the others ignore it.
    ...(agent === 'gemini' ? { stdin: '' } : {}),
  });
  expect(result.code, `${agent} exited ${result.code}: ${result.stderr.slice(-2000)}`).toBe(0);
  return {
    requests: session.model.requests.slice(before).filter(isTurn[agent]),
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

/** Runs `claude-checkpoint` in `cwd`. */
export function checkpointCli(cwd: string, env: NodeJS.ProcessEnv, args: string[]) {
  return runProcess(process.execPath, [CHECKPOINT_CLI, ...args], { cwd, env, stdin: '' });
}

/** Every string in a request, and in the JSON that strings hold (tool results arrive as JSON text). */
export function textsIn(value: unknown): string[] {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = JSON.parse(value.slice(Math.max(0, value.indexOf('{'))));
      if (parsed && typeof parsed === 'object') return [value, ...textsIn(parsed)];
    } catch {
      // plain text
    }
    return [value];
  }
  if (Array.isArray(value)) return value.flatMap(textsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(textsIn);
  return [];
}

/** The project's checkpoint file, parsed. */
export const storedCheckpoint = (root: string) =>
  JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));

/** A secret the person typed reached neither the checkpoint nor any JSON file of the store. */
export function expectSecretNowhere(root: string, store: string, secret: string): void {
  expect(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).not.toContain(secret);
  for (const file of readdirSync(store, { recursive: true }) as string[])
    if (file.endsWith('.json')) expect(readFileSync(path.join(store, file), 'utf8')).not.toContain(secret);
}

/**
 * The session every agent's "model never saves" test scripts: a prompt holding a secret, a three-step
 * list (one done, one in progress, one pending), a passing shell command, then a status sentence.
 */
export const NEVER_SAVES = {
  token: 'ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q',
  prompt:
    'Add a health check route to the API (the deploy token is ghp_Xq7Lm2Rt9vWb4Kc8Np3Ds6Fh1Jy5Gz0aTe7Q)',
  status: 'The route answers 200; its tests pass, the docs are next.',
} as const;

/**
 * What the checkpoint holds after that session, filled from the transcript: the goal (the secret
 * redacted), the list with its statuses (`tasks` as the agent words them), the status and the command.
 */
export function expectFilledFromTranscript(
  saved: ReturnType<typeof storedCheckpoint>,
  tasks: [string, string, string],
): void {
  expect(saved.goal.primary).toBe('Add a health check route to the API (the deploy token is «redacted»)');
  expect(saved.goal.tasks).toEqual([
    { description: tasks[0], status: 'done' },
    { description: tasks[1], status: 'in_progress' },
    { description: tasks[2], status: 'pending' },
  ]);
  expect(saved.summary).toBe(NEVER_SAVES.status);
  expect(saved.recentCommands).toContainEqual(
    expect.objectContaining({ command: "echo 'health: 200'", exitCode: 0 }),
  );
  expect(saved.meta.derived).toEqual(
    expect.objectContaining({
      goal: expect.any(String),
      tasks: expect.any(String),
      summary: expect.any(String),
    }),
  );
}

/**
 * What the model of the next session receives after that session: the notice at startup names the goal,
 * and the load tool's result (JSON text, read into) holds the goal, every task with its status marker,
 * the status sentence and `more` (a command line, say); the secret nowhere.
 */
export function expectBriefFromTranscript(
  requests: readonly LoggedRequest[],
  tasks: [string, string, string],
  more: string[] = [],
): void {
  expect(requests[0]?.raw).toContain(
    'Goal (from the session transcript): Add a health check route to the API',
  );
  const all = requests.map((request) => textsIn(request.body).join('\n')).join('\n');
  for (const part of [
    '## Goal (from the session transcript)\nAdd a health check route to the API (the deploy token is «redacted»)',
    '## Tasks (from the session transcript)',
    `[x] ${tasks[0]}`,
    `[~] ${tasks[1]}`,
    `[ ] ${tasks[2]}`,
    `## Where things stand (from the session transcript)\n${NEVER_SAVES.status}`,
    ...more,
  ])
    expect(all, part).toContain(part);
  expect(all).not.toContain(NEVER_SAVES.token);
}

/** What the turn of every agent's pre-command test writes into src/ before it runs `rm -rf src`. */
export const BEFORE_RM = {
  feature: 'export const feature = true;\n',
  app: 'v1\nexport const more = 2;\n',
} as const;

/**
 * After that turn (src/ gone): the snapshots are the turn's end, one before `rm -rf src` (none before the
 * harmless `ls`) and the prompt's; restoring the pre-command one brings back what the turn wrote, which
 * the prompt's, taken before the turn, would not.
 */
export async function expectPreCommandRestore(project: string, env: NodeJS.ProcessEnv): Promise<void> {
  const cli = async (...args: string[]) => {
    const result = await checkpointCli(project, env, args);
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  // The command ran: the hook never stops it.
  expect(existsSync(path.join(project, 'src'))).toBe(false);
  const { snapshots } = JSON.parse(await cli('list', '--json')) as {
    snapshots: Array<{ id: string; trigger: string; label?: string }>;
  };
  expect(snapshots.map((snapshot) => snapshot.trigger)).toEqual(['turn-end', 'pre-command', 'prompt']);
  const [, before, prompt] = snapshots;
  expect(before).toMatchObject({ label: 'rm -rf src' });

  await cli('restore', before?.id ?? '', '--yes');
  expect(readFileSync(path.join(project, 'src', 'feature.ts'), 'utf8')).toBe(BEFORE_RM.feature);
  expect(readFileSync(path.join(project, 'src', 'app.ts'), 'utf8')).toBe(BEFORE_RM.app);

  await cli('restore', prompt?.id ?? '', '--yes');
  expect(existsSync(path.join(project, 'src', 'feature.ts'))).toBe(false);
  expect(readFileSync(path.join(project, 'src', 'app.ts'), 'utf8')).toBe('v1\n');
}

/**
 * Every agent's turn with files over the snapshot size cap (lowered to 0.01 MB by `env`): `big.bin` and
 * `keep.bin`, untracked. In one turn `rm big.bin` (it names the file: its snapshot holds it all the same,
 * and it runs), a harmless command whose output shows it ran, and `git reset --hard` (the whole tree:
 * `keep.bin`, which no snapshot holds, is warned about). Nothing is ever held, denied or asked.
 */
export const LEFT_OUT_TURN = {
  prompt: 'Tidy up the big file',
  env: { CHECKPOINT_SNAPSHOT_MAX_FILE_MB: '0.01' },
  commands: ['rm big.bin', 'echo harmless-42 && ls *.bin', 'git reset --hard'],
} as const;

/** The scripted model's steps for that turn, each command through `call` (the agent's shell tool). */
export function leftOutSteps(call: (command: string) => PlannedStep): PlannedStep[] {
  return [...LEFT_OUT_TURN.commands.map(call), { text: 'Tidied.' }];
}

/** Writes that turn's untracked `big.bin` and `keep.bin` (16 KB each) into `project`; returns big.bin's bytes. */
export function writeBigFile(project: string): Buffer {
  const content = randomBytes(16 * 1024);
  writeFileSync(path.join(project, 'big.bin'), content);
  writeFileSync(path.join(project, 'keep.bin'), Buffer.alloc(16 * 1024, 7));
  return content;
}

/**
 * After that turn: `rm big.bin` ran (the harmless command lists keep.bin alone), and no reason to stop a
 * command reached the model; `warnedOfWholeTree`: the model received the warning before `git reset --hard`
 * (not where the agent gives a pre-tool hook's context to nobody). Then `restore` of the snapshot taken
 * before `rm big.bin` brings it back byte for byte. Returns every text the model received.
 */
export async function expectLeftOutTurn(
  project: string,
  env: NodeJS.ProcessEnv,
  requests: readonly LoggedRequest[],
  big: Buffer,
  options: { warnedOfWholeTree: boolean },
): Promise<string> {
  const received = textsIn(requests.at(-1)?.body).join('\n');
  expect(received).toContain('harmless-42\nkeep.bin');
  expect(existsSync(path.join(project, 'big.bin'))).toBe(false);
  // What each agent says of a command a hook stopped (measured when the hook asked or denied), and ours.
  for (const stop of [
    'Tool execution blocked',
    'blocked by PreToolUse hook',
    'Denied by preToolUse hook',
    'claude-checkpoint held',
    'CHECKPOINT_ALLOW_LOSS',
    'does not hold `big.bin`',
  ])
    expect(received).not.toContain(stop);
  if (options.warnedOfWholeTree)
    expect(received).toContain(
      'The pre-command snapshot does not hold `keep.bin` (16.00 KB, over the 0.01 MB size cap): what this command changes there cannot be rewound',
    );
  else expect(received).not.toContain('does not hold `keep.bin`');
  const listed = await checkpointCli(project, env, ['list', '--json']);
  const { snapshots } = JSON.parse(listed.stdout) as { snapshots: Array<{ id: string; label?: string }> };
  const before = snapshots.find((snapshot) => snapshot.label === 'rm big.bin');
  expect(before, listed.stdout).toBeDefined();
  const restored = await checkpointCli(project, env, ['restore', before?.id ?? '', '--yes']);
  expect(restored.code, restored.stderr).toBe(0);
  expect(readFileSync(path.join(project, 'big.bin')).equals(big)).toBe(true);
  return received;
}

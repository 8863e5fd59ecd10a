import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeProjectDir } from '../../src/app/conversation-fork.js';
import { pluginSessionSetup, repoRoot, runClaude, runClaudeConversation } from '../helpers/claude-code.js';
import type { FakeModel, LoggedRequest, Plan } from '../helpers/fake-model.js';

/**
 * `claude-checkpoint rewind` against a real Claude Code session of three prompts, each changing files
 * through Bash (which Claude Code's own checkpoints do not track), driven by the scripted model.
 */

const plan: Plan = (prompt) => {
  const step = /^Step (\d)/.exec(prompt)?.[1];
  if (step)
    return [
      {
        tool: 'Bash',
        input: {
          command: `echo s${step} > step${step}.txt && echo x${step} >> a.txt`,
          description: `Step ${step}`,
        },
      },
      { text: `Did step ${step}.` },
    ];
  return [{ text: 'Continuing.' }];
};

let model: FakeModel;
let home: string;
let project: string;
let env: NodeJS.ProcessEnv;
let sessionId = '';
const CLI = path.join(repoRoot, 'plugin/dist/cli.mjs');

/** Runs our bundled CLI (as the plugin ships it) in the project; resolves with its exit code and output. */
function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runClaudeLike(process.execPath, [CLI, ...args]);
}

async function runClaudeLike(file: string, args: readonly string[]) {
  const { spawn } = await import('node:child_process');
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(file, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const transcriptOf = (id: string) => path.join(claudeProjectDir(env, project), `${id}.jsonl`);
/** The project's own files (ours left out) and their text. */
function readTree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(root, { recursive: true }) as string[]) {
    if (name.startsWith('.git') || name.startsWith('.claude')) continue;
    files[name] = readFileSync(path.join(root, name), 'utf8');
  }
  return files;
}
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The conversation a model request carries, as a list: what the person typed (a user message's last
 * plain text block: context and reminders come before it), the model's text, tool calls and results.
 * Hook context (a system-role message) is left out.
 */
function conversation(request: LoggedRequest): string[] {
  const messages = (request.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const out: string[] = [];
  for (const message of messages) {
    if (message.role !== 'user' && message.role !== 'assistant') continue;
    const blocks =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : (message.content as Array<Record<string, unknown>>);
    const texts = blocks.filter(
      (block) => block.type === 'text' && !String(block.text).trimStart().startsWith('<'),
    );
    for (const block of blocks) {
      if (block.type === 'tool_use') out.push(`${message.role}: tool_use ${String(block.name)}`);
      if (block.type === 'tool_result') out.push(`${message.role}: tool_result`);
    }
    const typed = message.role === 'user' ? texts.slice(-1) : texts;
    for (const block of typed) out.push(`${message.role}: ${String(block.text)}`);
  }
  return out;
}

beforeAll(async () => {
  ({ model, home, project, env } = await pluginSessionSetup(plan, { 'a.txt': 'a\n' }));
  const run = await runClaudeConversation(
    ['--allowedTools', 'Bash'],
    ['Step 1 first', 'Step 2 second', 'Step 3 third'],
    {
      cwd: project,
      env,
    },
  );
  expect(run.code, run.stderr).toBe(0);
  expect(run.results).toBe(3);
  const init = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { type: string; session_id?: string })
    .find((line) => line.session_id);
  sessionId = init?.session_id ?? '';
  expect(readTree(project)).toMatchObject({ 'a.txt': 'a\nx1\nx2\nx3\n', 'step3.txt': 's3\n' });
});

afterAll(async () => {
  await model?.close();
});

interface Listing {
  sessionId: string;
  entries: Array<{
    id: string;
    prompt: string;
    sessionId: string;
    agent: string;
    changes: Record<string, number>;
  }>;
}

describe('rewind a real Claude Code session', () => {
  let listing: Listing;

  it('--list --json: the three prompts, newest first, with the agent, the session and what changed after each', async () => {
    const run = await cli(['rewind', '--list', '--json']);
    expect(run.code, run.stderr).toBe(0);
    listing = JSON.parse(run.stdout) as Listing;
    expect(listing.sessionId).toBe(sessionId);
    expect(
      listing.entries.map((entry) => [entry.prompt, entry.agent, entry.sessionId, entry.changes]),
    ).toEqual([
      ['Step 3 third', 'claude', sessionId, { added: 1, modified: 1, deleted: 0 }],
      ['Step 2 second', 'claude', sessionId, { added: 2, modified: 1, deleted: 0 }],
      ['Step 1 first', 'claude', sessionId, { added: 3, modified: 1, deleted: 0 }],
    ]);
    // Each prompt's snapshot names the agent and the transcript its hook was given.
    const snapshots = JSON.parse((await cli(['list', '--json'])).stdout).snapshots as Array<
      Record<string, unknown>
    >;
    const prompts = snapshots.filter((snapshot) => snapshot.trigger === 'prompt');
    expect(prompts).toHaveLength(3);
    for (const snapshot of prompts)
      expect(snapshot).toMatchObject({ agent: 'claude', sessionId, transcriptPath: transcriptOf(sessionId) });
  });

  it('rewind without a ref and without a terminal exits 2 with a hint; a bad ref is one line and changes nothing', async () => {
    const before = readTree(project);
    const bare = await cli(['rewind']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('rewind --list --json');
    const bad = await cli(['rewind', 'latest~3', '--code', '--yes']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      "claude-checkpoint: 'latest~3' goes back 3 prompt(s), but there are only 3: the oldest is latest~2\n",
    );
    expect(readTree(project)).toEqual(before);
  });

  it('latest --code: unconfirmed exits 3 and changes nothing; with --yes the third step’s files are undone', async () => {
    const unconfirmed = await cli(['rewind', 'latest', '--code']);
    expect(unconfirmed.code).toBe(3);
    expect(readTree(project)['step3.txt']).toBe('s3\n');
    const run = await cli(['rewind', 'latest', '--code', '--yes']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Code: restored, 2 file(s) changed.');
    const tree = readTree(project);
    expect(tree['a.txt']).toBe('a\nx1\nx2\n');
    expect(tree['step3.txt']).toBeUndefined();
    expect(tree['step2.txt']).toBe('s2\n');
  });

  it('latest~1 --both: the code before the second prompt, and a new session holding only the first turn; the original transcript unchanged', async () => {
    const original = transcriptOf(sessionId);
    const before = sha(original);
    const sessionsBefore = readdirSync(path.dirname(original));
    const run = await cli(['rewind', 'latest~1', '--both', '--yes', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const outcome = JSON.parse(run.stdout) as {
      entry: { prompt: string };
      conversation: { prompt: string; fork: { sessionId: string; resume: string; transcript: string } };
    };
    expect(outcome.entry.prompt).toBe('Step 2 second');
    expect(outcome.conversation.prompt).toBe('Step 2 second');
    const fork = outcome.conversation.fork;
    expect(fork.resume).toBe(`claude --resume ${fork.sessionId}`);
    expect(fork.transcript).toBe(transcriptOf(fork.sessionId));
    expect(readdirSync(path.dirname(original)).sort()).toEqual(
      [...sessionsBefore, `${fork.sessionId}.jsonl`].sort(),
    );
    expect(sha(original)).toBe(before);
    const tree = readTree(project);
    expect(tree['a.txt']).toBe('a\nx1\n');
    expect(tree['step2.txt']).toBeUndefined();
    expect(tree['step1.txt']).toBe('s1\n');

    // Resumed by the real Claude Code, the model receives exactly the first turn, then the new prompt.
    const first = model.requests.length;
    const resumed = await runClaude(['-p', 'Carry on from here', '--resume', fork.sessionId], {
      cwd: project,
      env,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const request = model.requests
      .slice(first)
      .find(
        (logged) =>
          logged.url.startsWith('/v1/messages') && JSON.stringify(logged.body).includes('Carry on from here'),
      );
    expect(request).toBeDefined();
    expect(conversation(request as LoggedRequest)).toEqual([
      'user: Step 1 first',
      'assistant: tool_use Bash',
      'user: tool_result',
      'assistant: Did step 1.',
      'user: Carry on from here',
    ]);
    expect(sha(original)).toBe(before);
  });

  it('--conversation by id: a new session before the third prompt, the files left as they are', async () => {
    const third = listing.entries[0];
    const tree = readTree(project);
    // The whole id: a prefix of 17 characters can match the turn-end snapshot taken in the same second.
    const run = await cli(['rewind', third?.id ?? '', '--conversation']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Continue it: claude --resume [0-9a-f-]{36}\n/);
    expect(run.stdout).toMatch(/The prompt, to send again or edit:\n\nStep 3 third\n$/);
    expect(readTree(project)).toEqual(tree);
    const id = /claude --resume ([0-9a-f-]{36})/.exec(run.stdout)?.[1] ?? '';
    const text = readFileSync(transcriptOf(id), 'utf8');
    expect(text).toContain('Did step 2.');
    expect(text).not.toContain('Step 3 third');
    expect(existsSync(transcriptOf(sessionId))).toBe(true);
  });

  it('after /clear: the list holds the new session’s prompts, and --all the previous session with its resume command', async () => {
    const run = await runClaudeConversation(
      ['--allowedTools', 'Bash'],
      ['Before the clear', '/clear', 'After the clear'],
      {
        cwd: project,
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const current = JSON.parse((await cli(['rewind', '--list', '--json'])).stdout) as Listing;
    expect(current.entries.map((entry) => entry.prompt)).toEqual(['After the clear']);
    const all = JSON.parse((await cli(['rewind', '--list', '--all', '--json'])).stdout) as {
      sessions: Array<{ sessionId: string; resume: string; entries: Array<{ prompt: string }> }>;
    };
    const before = all.sessions.find((session) =>
      session.entries.some((entry) => entry.prompt === 'Before the clear'),
    );
    expect(before?.sessionId).not.toBe(current.sessionId);
    expect(before?.resume).toBe(`claude --resume ${before?.sessionId}`);
    // The original session and the fork that was resumed are listed too.
    expect(all.sessions.map((session) => session.resume)).toContain(`claude --resume ${sessionId}`);
    expect(all.sessions.length).toBeGreaterThanOrEqual(4);
    void home;
  });
});

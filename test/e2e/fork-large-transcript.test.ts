import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeProjectDir } from '../../src/app/conversation-fork.js';
import { assertBuilt, CLI, childEnv, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const SESSION = 'cccccccc-1111-4222-8333-444444444444';
const MB = 1024 * 1024;
const TRANSCRIPT_BYTES = 100 * MB;
const MAX_PEAK_RSS_BYTES = 400 * MB;

/**
 * A Claude Code transcript of about `bytes`: a first prompt, then assistant messages (each 10 KB of text)
 * chained by parentUuid, then the second prompt, written after `promptAt`. Written in pieces: the test
 * itself must not hold it whole either.
 */
function writeTranscript(file: string, bytes: number, promptAt: Date): void {
  const fd = openSync(file, 'w');
  try {
    const base = { sessionId: SESSION, cwd: '/p', version: '2.1.332', isSidechain: false };
    const line = (fields: Record<string, unknown>) => `${JSON.stringify({ ...base, ...fields })}\n`;
    writeSync(
      fd,
      line({
        type: 'user',
        uuid: 'u-0',
        parentUuid: null,
        promptId: 'p-1',
        timestamp: new Date(promptAt.getTime() - 60_000).toISOString(),
        message: { role: 'user', content: 'first prompt' },
      }),
    );
    const filler = 'lorem ipsum dolor sit amet, "quoted" and \\ escaped\n'.repeat(200);
    let written = 0;
    let parent = 'u-0';
    for (let index = 1; written < bytes; index++) {
      const uuid = `a-${index}`;
      const text = line({
        type: 'assistant',
        uuid,
        parentUuid: parent,
        timestamp: new Date(promptAt.getTime() - 30_000).toISOString(),
        message: { role: 'assistant', content: [{ type: 'text', text: filler }] },
      });
      written += writeSync(fd, text);
      parent = uuid;
    }
    writeSync(
      fd,
      line({
        type: 'user',
        uuid: 'u-2',
        parentUuid: parent,
        promptId: 'p-2',
        timestamp: new Date(promptAt.getTime() + 1_000).toISOString(),
        message: { role: 'user', content: 'second prompt' },
      }),
    );
  } finally {
    closeSync(fd);
  }
}

/** Runs the built CLI, and reads its peak resident set size (VmHWM) as it exits. */
function runCliMeasured(args: string[], cwd: string, env: Record<string, string>) {
  const probe = path.join(tempDir('hwm-'), 'probe.cjs');
  const out = `${probe}.out`;
  writeFileSync(
    probe,
    `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, /VmHWM:\\s*(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]));\n`,
  );
  return new Promise<{ code: number | null; stdout: string; stderr: string; peakBytes: number }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, ['-r', probe, CLI, ...args], { cwd, env: childEnv(env) });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('error', reject);
      child.on('close', (code) =>
        resolve({ code, stdout, stderr, peakBytes: Number(readFileSync(out, 'utf8')) * 1024 }),
      );
    },
  );
}

const cleanup: string[] = [];
afterAll(() => {
  for (const file of cleanup) rmSync(file, { force: true });
});

// Helper task (issue 26): forking a 100 MB Claude Code transcript for a conversation rewind peaked at
// about 1.2 GB: the file was read as one string, split into its lines, each parsed, and the fork joined
// into one more string. It is read and written line by line now.
describe.skipIf(!existsSync('/proc/self/status'))(
  'a conversation rewind of a 100 MB Claude Code transcript',
  () => {
    it('forks it within a bounded memory, the new session whole', async () => {
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      const home = tempDir('home-');
      const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
      const hook = (prompt: string) =>
        runCli(['hook', 'UserPromptSubmit'], {
          cwd: root,
          env,
          input: JSON.stringify({
            session_id: SESSION,
            cwd: root,
            hook_event_name: 'UserPromptSubmit',
            prompt,
          }),
        });
      expect((await hook('first prompt')).code).toBe(0);
      expect((await hook('second prompt')).code).toBe(0);
      const snapshots = JSON.parse(
        (await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout,
      ).snapshots as { id: string; createdAt: string }[];
      const second = snapshots[0] as { id: string; createdAt: string };

      const dir = claudeProjectDir({ HOME: home }, root);
      mkdirSync(dir, { recursive: true });
      const transcript = path.join(dir, `${SESSION}.jsonl`);
      cleanup.push(transcript);
      writeTranscript(transcript, TRANSCRIPT_BYTES, new Date(second.createdAt));

      const run = await runCliMeasured(
        ['rewind', second.id, '--conversation', '--yes', '--json', '--root', root],
        root,
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      const fork = JSON.parse(run.stdout).conversation.fork as { transcript: string; messages: number };
      cleanup.push(fork.transcript);
      expect(run.peakBytes, `peak ${Math.round(run.peakBytes / MB)} MB`).toBeLessThan(MAX_PEAK_RSS_BYTES);

      // Every line before the prompt, renamed, and the closing last-prompt line.
      const forkedBytes = statSync(fork.transcript).size;
      expect(forkedBytes).toBeGreaterThan(TRANSCRIPT_BYTES * 0.9);
      expect(statSync(fork.transcript).mode & 0o777).toBe(0o600);
      const fd = openSync(fork.transcript, 'r');
      const tail = Buffer.alloc(4096);
      const { size } = statSync(fork.transcript);
      const read = readSync(fd, tail, 0, tail.length, size - tail.length);
      closeSync(fd);
      const last = JSON.parse(tail.subarray(0, read).toString('utf8').trimEnd().split('\n').pop() as string);
      expect(last).toMatchObject({ type: 'last-prompt', lastPrompt: 'first prompt' });
      expect(fork.messages).toBeGreaterThan(1000);
    }, 180_000);

    // The same for a Codex rollout, read whole before as well.
    it('Codex: forks a 100 MB rollout within the same bound', async () => {
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      const home = tempDir('home-');
      const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
      const hook = (prompt: string, turn: string) =>
        runCli(['hook', 'UserPromptSubmit', '--agent', 'codex'], {
          cwd: root,
          env,
          input: JSON.stringify({ session_id: CODEX_SESSION, turn_id: turn, cwd: root, prompt }),
        });
      expect((await hook('first prompt', 't-1')).code).toBe(0);
      expect((await hook('second prompt', 't-2')).code).toBe(0);
      const second = JSON.parse((await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout)
        .snapshots[0] as { id: string };

      const day = path.join(home, '.codex', 'sessions', '2026', '12', '06');
      mkdirSync(day, { recursive: true });
      const rollout = path.join(day, `rollout-2026-12-06T10-00-00-${CODEX_SESSION}.jsonl`);
      cleanup.push(rollout);
      writeRollout(rollout, TRANSCRIPT_BYTES);

      const run = await runCliMeasured(
        ['rewind', second.id, '--conversation', '--yes', '--json', '--root', root],
        root,
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      const fork = JSON.parse(run.stdout).conversation.fork as { transcript: string; messages: number };
      cleanup.push(fork.transcript);
      expect(run.peakBytes, `peak ${Math.round(run.peakBytes / MB)} MB`).toBeLessThan(MAX_PEAK_RSS_BYTES);
      expect(statSync(fork.transcript).size).toBeGreaterThan(TRANSCRIPT_BYTES * 0.9);
      expect(fork.messages).toBeGreaterThan(1000);
    }, 180_000);
  },
);

// Helper task left3, item 3: a Copilot CLI session's events were read whole to be forked (the text, its
// lines, their objects and the fork's text at once). Read and written line by line now, as above.
describe.skipIf(!existsSync('/proc/self/status'))(
  'a conversation rewind of 100 MB of Copilot CLI events',
  () => {
    it('forks them within the same bound, the new session whole, its workspace file beside', async () => {
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      const home = tempDir('home-');
      const copilotHome = path.join(home, '.copilot');
      const env = { HOME: home, CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') };
      const hook = (prompt: string) =>
        runCli(['hook', 'UserPromptSubmit', '--agent', 'copilot'], {
          cwd: root,
          env,
          input: JSON.stringify({ session_id: COPILOT_SESSION, cwd: root, prompt }),
        });
      expect((await hook('first prompt')).code).toBe(0);
      expect((await hook('second prompt')).code).toBe(0);
      const second = JSON.parse((await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout)
        .snapshots[0] as { id: string; createdAt: string };

      const folder = path.join(copilotHome, 'session-state', COPILOT_SESSION);
      mkdirSync(folder, { recursive: true });
      const events = path.join(folder, 'events.jsonl');
      cleanup.push(events);
      writeCopilotEvents(events, TRANSCRIPT_BYTES, new Date(second.createdAt));
      writeFileSync(path.join(folder, 'workspace.yaml'), `id: ${COPILOT_SESSION}\ncwd: ${root}\n`);

      const run = await runCliMeasured(
        ['rewind', second.id, '--conversation', '--yes', '--json', '--root', root],
        root,
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      const fork = JSON.parse(run.stdout).conversation.fork as {
        sessionId: string;
        transcript: string;
        messages: number;
      };
      cleanup.push(fork.transcript);
      expect(run.peakBytes, `peak ${Math.round(run.peakBytes / MB)} MB`).toBeLessThan(MAX_PEAK_RSS_BYTES);
      expect(fork.transcript).toBe(path.join(copilotHome, 'session-state', fork.sessionId, 'events.jsonl'));
      expect(statSync(fork.transcript).size).toBeGreaterThan(TRANSCRIPT_BYTES * 0.9);
      expect(statSync(fork.transcript).mode & 0o777).toBe(0o600);
      // The first event names the new session; the last is the last before the second prompt.
      const fd = openSync(fork.transcript, 'r');
      const head = Buffer.alloc(4096);
      readSync(fd, head, 0, head.length, 0);
      const tail = Buffer.alloc(64 * 1024);
      const { size } = statSync(fork.transcript);
      const read = readSync(fd, tail, 0, tail.length, size - tail.length);
      closeSync(fd);
      expect(JSON.parse(head.toString('utf8').split('\n')[0] as string)).toMatchObject({
        type: 'session.start',
        data: { sessionId: fork.sessionId },
      });
      const last = JSON.parse(tail.subarray(0, read).toString('utf8').trimEnd().split('\n').pop() as string);
      expect(last).toMatchObject({ type: 'assistant.message' });
      expect(fork.messages).toBeGreaterThan(1000);
      expect(readFileSync(path.join(path.dirname(fork.transcript), 'workspace.yaml'), 'utf8')).toBe(
        `id: ${fork.sessionId}\ncwd: ${root}\n`,
      );
    }, 180_000);
  },
);

// The end of a turn reads the same events from the end backwards, in chunks: a guard that it stays so.
describe.skipIf(!existsSync('/proc/self/status'))('the end of a turn on 100 MB of Copilot CLI events', () => {
  it('reads them within the same bound, and records the turn', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const home = tempDir('home-');
    const env = {
      HOME: home,
      COPILOT_HOME: path.join(home, '.copilot'),
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
    };
    const folder = path.join(home, '.copilot', 'session-state', COPILOT_SESSION);
    mkdirSync(folder, { recursive: true });
    const events = path.join(folder, 'events.jsonl');
    cleanup.push(events);
    writeCopilotEvents(events, TRANSCRIPT_BYTES, new Date());
    // The answer to the second prompt, written whole (its message asks for no tool; its turn ended).
    const fd = openSync(events, 'a');
    const at = new Date().toISOString();
    writeSync(
      fd,
      `${JSON.stringify({ type: 'assistant.message', data: { content: 'All done.', toolRequests: [] }, id: 'e-end-1', timestamp: at, parentId: null })}\n${JSON.stringify({ type: 'assistant.turn_end', data: { turnId: '1' }, id: 'e-end-2', timestamp: at, parentId: null })}\n`,
    );
    closeSync(fd);
    const input = JSON.stringify({
      hook_event_name: 'Stop',
      session_id: COPILOT_SESSION,
      cwd: root,
      transcript_path: events,
      stop_reason: 'end_turn',
    });
    const probe = path.join(tempDir('hwm-'), 'probe.cjs');
    const out = `${probe}.out`;
    writeFileSync(
      probe,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(out)}, /VmHWM:\\s*(\\d+)/.exec(require('node:fs').readFileSync('/proc/self/status', 'utf8'))[1]));\n`,
    );
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['-r', probe, CLI, 'hook', 'Stop', '--agent', 'copilot'], {
        cwd: root,
        env: childEnv(env),
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
      child.stdin.end(input);
    });
    expect(run.code, run.stderr).toBe(0);
    const peakBytes = Number(readFileSync(out, 'utf8')) * 1024;
    expect(peakBytes, `peak ${Math.round(peakBytes / MB)} MB`).toBeLessThan(MAX_PEAK_RSS_BYTES);
    const saved = JSON.parse(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8'));
    expect(saved.goal.primary).toBe('first prompt');
  }, 180_000);
});

const COPILOT_SESSION = 'af86c68a-a4bb-48c1-8cf8-ba796d0575f7';

/**
 * Copilot CLI events of about `bytes`: the session's start, a first prompt, assistant messages (10 KB of
 * text each), then the second prompt, written after `promptAt`.
 */
function writeCopilotEvents(file: string, bytes: number, promptAt: Date): void {
  const fd = openSync(file, 'w');
  try {
    let id = 0;
    const line = (type: string, data: Record<string, unknown>, at: Date) =>
      `${JSON.stringify({ type, data, id: `e-${id++}`, timestamp: at.toISOString(), parentId: null })}\n`;
    const before = new Date(promptAt.getTime() - 60_000);
    writeSync(fd, line('session.start', { sessionId: COPILOT_SESSION, copilotVersion: '1.0.102' }, before));
    writeSync(fd, line('user.message', { content: 'first prompt' }, before));
    const filler = 'lorem ipsum dolor sit amet, "quoted" and \\ escaped\n'.repeat(200);
    for (let written = 0; written < bytes; )
      written += writeSync(fd, line('assistant.message', { content: filler, toolRequests: [] }, before));
    writeSync(fd, line('user.message', { content: 'second prompt' }, new Date(promptAt.getTime() + 1_000)));
  } finally {
    closeSync(fd);
  }
}

const CODEX_SESSION = '01a23534-b9d3-7892-85f6-6d7e97ff6f0a';

/** A Codex rollout of about `bytes`: its session_meta, a first turn of many messages, and a second turn. */
function writeRollout(file: string, bytes: number): void {
  const fd = openSync(file, 'w');
  try {
    const line = (type: string, payload: Record<string, unknown>) =>
      `${JSON.stringify({ timestamp: '2026-12-06T10:00:00.000Z', type, payload })}\n`;
    const message = (role: string, text: string, turn: string) =>
      line('response_item', {
        type: 'message',
        role,
        content: [{ type: role === 'user' ? 'input_text' : 'output_text', text }],
        internal_chat_message_metadata_passthrough: { turn_id: turn },
      });
    writeSync(fd, line('session_meta', { id: CODEX_SESSION, cwd: '/p', cli_version: '0.169.0' }));
    writeSync(fd, line('event_msg', { type: 'task_started', turn_id: 't-1' }));
    writeSync(fd, message('user', 'first prompt', 't-1'));
    const filler = 'lorem ipsum dolor sit amet, "quoted" and \\ escaped\n'.repeat(200);
    for (let written = 0; written < bytes; ) written += writeSync(fd, message('assistant', filler, 't-1'));
    writeSync(fd, line('event_msg', { type: 'task_started', turn_id: 't-2' }));
    writeSync(fd, message('user', 'second prompt', 't-2'));
  } finally {
    closeSync(fd);
  }
}

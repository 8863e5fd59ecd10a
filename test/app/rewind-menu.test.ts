import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeProjectDir } from '../../src/app/conversation-fork.js';
import { defaultDeps } from '../../src/app/deps.js';
import { diffSnapshot, listSnapshots, restoreSnapshot, takeSnapshot } from '../../src/app/rewind.js';
import { listRewind, rewindTo } from '../../src/app/rewind-menu.js';
import { renderRewind } from '../../src/core/rewind-text.js';
import { createRepo, tempDir, writeTree } from '../helpers/fixtures.js';
import { readTree } from '../helpers/tree.js';

const A = 'b4c9ace5-a499-4748-b228-b65376c1eb91';
const B = '0b0b0b0b-0000-4000-8000-000000000002';

function depsFor(env: Record<string, string> = {}) {
  return defaultDeps({
    env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-'), ...env },
  });
}

/**
 * Session A sends a prompt and writes; session B (Codex) sends one and writes, some of it in A's files;
 * a person snapshots by hand and then edits a file; session A sends a second prompt.
 */
async function twoSessions(env: Record<string, string> = {}) {
  const root = createRepo({ committed: { 'a.txt': 'a1\n', 'keep.txt': 'k\n' } });
  const deps = depsFor(env);
  const prompt = (sessionId: string, label: string, agent: string) =>
    takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label, sessionId, prompt: { agent } });
  await prompt(A, 'Step 1 first', 'claude');
  writeTree(root, { 'a.txt': 'a2\n', 'x.txt': 'x\n' });
  await prompt(B, 'Fix the build', 'codex');
  writeTree(root, { 'a.txt': 'a3 by codex\n', 'b.txt': 'b\n' });
  await takeSnapshot(deps, { projectRoot: root, trigger: 'manual' });
  writeTree(root, { 'e.txt': 'typed by a person\n' });
  await prompt(A, 'Step 2 second', 'claude');
  writeTree(root, { 'y.txt': 'y\n' });
  return { root, deps };
}

describe('rewind: the prompts of a session', () => {
  it('lists the current session’s prompts newest first, with what changed after each', async () => {
    const { root, deps } = await twoSessions();
    const listing = await listRewind(deps, { projectRoot: root });
    // No session named: the one that prompted last.
    expect(listing).toMatchObject({ sessionId: A, sessionSource: 'newest' });
    expect(listing.entries.map((entry) => [entry.prompt, entry.agent, entry.changes])).toEqual([
      ['Step 2 second', 'claude', { added: 1, modified: 0, deleted: 0 }],
      ['Step 1 first', 'claude', { added: 4, modified: 1, deleted: 0 }],
    ]);
    const named = await listRewind(deps, { projectRoot: root, sessionId: B });
    expect(named).toMatchObject({ sessionId: B, sessionSource: 'named' });
    expect(named.entries.map((entry) => entry.prompt)).toEqual(['Fix the build']);
  });

  it('takes the session the agent names in the environment', async () => {
    const { root, deps } = await twoSessions({ CLAUDE_CODE_SESSION_ID: B });
    expect((await listRewind(deps, { projectRoot: root })).entries.map((entry) => entry.prompt)).toEqual([
      'Fix the build',
    ]);
  });

  it('--all: every session, the one prompted last first, each with its resume command', async () => {
    const { root, deps } = await twoSessions();
    const listing = await listRewind(deps, { projectRoot: root, all: true });
    expect(
      listing.sessions?.map((session) => [session.sessionId, session.resume, session.entries.length]),
    ).toEqual([
      [A, `claude --resume ${A}`, 2],
      [B, `codex resume ${B}`, 1],
    ]);
  });

  it('a prompt recorded on an unchanged tree is still a prompt to go back to', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const deps = depsFor();
    for (const label of ['one', 'two'])
      await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label, sessionId: A });
    expect((await listRewind(deps, { projectRoot: root })).entries.map((entry) => entry.prompt)).toEqual([
      'two',
      'one',
    ]);
  });
});

describe('latest~N in diff and restore counts snapshots, not prompts', () => {
  it('goes back N snapshots of any trigger', async () => {
    const { root, deps } = await twoSessions();
    const { snapshots } = await listSnapshots(deps, { projectRoot: root });
    expect(snapshots.map((snapshot) => snapshot.trigger)).toEqual(['prompt', 'manual', 'prompt', 'prompt']);
    const plan = await restoreSnapshot(deps, { projectRoot: root, snapshotId: 'latest~1', dryRun: true });
    expect(plan.snapshot.id).toBe(snapshots[1]?.id);
    expect((await diffSnapshot(deps, { projectRoot: root, snapshotId: 'latest~3' })).from).toBe(
      snapshots[3]?.id,
    );
    await expect(diffSnapshot(deps, { projectRoot: root, snapshotId: 'latest~4' })).rejects.toThrow(
      /'latest~4' goes back 4 snapshot\(s\), but there are only 4/,
    );
  });
});

describe('rewind: code', () => {
  it('names, per file, what another session or someone outside any agent changed after the prompt, before writing anything', async () => {
    const { root, deps } = await twoSessions();
    const before = readTree(root);
    const plan = await rewindTo(deps, { projectRoot: root, ref: 'latest~1', mode: 'code', dryRun: true });
    expect(plan.entry.prompt).toBe('Step 1 first');
    expect(plan.code?.plan).toEqual({
      overwrite: ['a.txt'],
      create: [],
      delete: ['b.txt', 'e.txt', 'x.txt', 'y.txt'],
      keptAside: [],
      refused: [],
    });
    expect(plan.code?.conflicts).toEqual([
      { path: 'a.txt', changedBy: [`session ${B} (codex)`] },
      { path: 'b.txt', changedBy: [`session ${B} (codex)`] },
      { path: 'e.txt', changedBy: ['outside any agent session'] },
    ]);
    expect(readTree(root)).toEqual(before);

    const done = await rewindTo(deps, { projectRoot: root, ref: 'latest~1', mode: 'code', dryRun: false });
    expect(done.code?.undoSnapshotId).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    const after = Object.keys(readTree(root));
    for (const name of ['b.txt', 'e.txt', 'x.txt', 'y.txt']) expect(after).not.toContain(name);
    expect(after).toContain('keep.txt');
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n');
  });

  it('a bad ref changes nothing: no file, no snapshot', async () => {
    const { root, deps } = await twoSessions();
    const before = readTree(root);
    const snapshots = (await listSnapshots(deps, { projectRoot: root })).snapshots.length;
    for (const ref of ['latest~2', 'nope', 'latest^1'])
      await expect(rewindTo(deps, { projectRoot: root, ref, mode: 'both', dryRun: false })).rejects.toThrow(
        /^(?!.*\n)/,
      );
    expect(readTree(root)).toEqual(before);
    expect((await listSnapshots(deps, { projectRoot: root })).snapshots.length).toBe(snapshots);
  });

  it('an unknown id points to the list of every session, the hint whole inside its backticks', async () => {
    const { root, deps } = await twoSessions();
    await expect(
      rewindTo(deps, { projectRoot: root, ref: 'nope', mode: 'code', dryRun: true }),
    ).rejects.toThrow(/^no prompt 'nope': see them with `claude-checkpoint rewind --list --all`$/);
    // A session named in the environment (the agent's own) may have no prompts yet.
    const named = depsFor({
      CHECKPOINT_STORE_DIR: deps.env.CHECKPOINT_STORE_DIR ?? '',
      CLAUDE_CODE_SESSION_ID: 'gone',
    });
    await expect(
      rewindTo(named, { projectRoot: root, ref: 'latest', mode: 'code', dryRun: true }),
    ).rejects.toThrow(
      /^session gone has no prompts here: see them with `claude-checkpoint rewind --list --all`$/,
    );
  });

  it.each([
    ['its full id', A, A],
    ['a unique prefix, as list shows it', A.slice(0, 8), A],
    ['a unique prefix of another session', '0b0b', B],
  ])('--session takes %s (new-user trial 2026-12-06)', async (_name, given, sessionId) => {
    const { root, deps } = await twoSessions();
    expect(await listRewind(deps, { projectRoot: root, sessionId: given })).toMatchObject({
      sessionId,
      sessionSource: 'named',
    });
    const plan = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      sessionId: given,
      mode: 'code',
      dryRun: true,
    });
    expect(plan.entry.sessionId).toBe(sessionId);
  });

  it('--session: an unknown id or prefix is an error that says where the sessions are, not "no prompts"', async () => {
    const { root, deps } = await twoSessions();
    for (const run of [
      () => listRewind(deps, { projectRoot: root, sessionId: 'gone' }),
      () =>
        rewindTo(deps, { projectRoot: root, ref: 'latest', sessionId: 'gone', mode: 'code', dryRun: true }),
    ])
      await expect(run()).rejects.toThrow(
        /^--session: no session 'gone'; `claude-checkpoint rewind --list --all` shows the sessions$/,
      );
  });
});

describe('rewind: conversation', () => {
  it('for OpenCode: says what its own fork allows and why we write none, and gives back the prompt', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const deps = depsFor();
    await takeSnapshot(deps, {
      projectRoot: root,
      trigger: 'prompt',
      label: 'Fix the build',
      sessionId: 'ses_dcabd1782ffenOFJgZLtDYg59H',
      prompt: { agent: 'opencode' },
    });
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      mode: 'conversation',
      dryRun: false,
    });
    expect(outcome.code).toBeNull();
    expect(outcome.conversation).toMatchObject({
      canFork: false,
      fork: null,
      prompt: 'Fix the build',
      resumeOriginal: 'opencode --session ses_dcabd1782ffenOFJgZLtDYg59H',
    });
    expect(outcome.conversation?.reason).toMatch(/OpenCode keeps its sessions in its own database.*\/fork/);
  });

  it('for Codex without its rollout: says where it looked', async () => {
    const { root, deps } = await twoSessions();
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      sessionId: B,
      mode: 'conversation',
      dryRun: false,
    });
    expect(outcome.conversation).toMatchObject({
      canFork: false,
      fork: null,
      prompt: 'Fix the build',
      promptFromLabel: true,
    });
    expect(outcome.conversation?.reason).toBe(
      `Codex's transcript of session ${B} was not found (in ${path.join(deps.env.HOME ?? '', '.codex', 'sessions')}).`,
    );
    // The label may be the prompt's first line only: the text says so, rather than pass it for the whole.
    expect(renderRewind(outcome)).toMatch(
      /The prompt, to send again or edit, as its snapshot's label keeps it \(its first line, at most 200 characters, secrets redacted: check it against what you sent\):\n\nFix the build$/,
    );
  });

  it('for Claude Code without its transcript: says where it looked', async () => {
    const { root, deps } = await twoSessions();
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      mode: 'conversation',
      dryRun: false,
    });
    expect(outcome.conversation?.canFork).toBe(false);
    expect(outcome.conversation?.reason).toContain(claudeProjectDir(deps.env, root));
  });

  it('for Claude Code: a new session beside the original, which stays byte for byte', async () => {
    const { root, deps } = await twoSessions();
    const dir = claudeProjectDir(deps.env, root);
    mkdirSync(dir, { recursive: true });
    const original = path.join(dir, `${A}.jsonl`);
    copyFileSync(new URL('../fixtures/claude-code-session.jsonl', import.meta.url), original);
    const bytes = readFileSync(original);
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      mode: 'conversation',
      dryRun: false,
    });
    const fork = outcome.conversation?.fork;
    expect(fork?.resume).toBe(`claude --resume ${fork?.sessionId}`);
    expect(readdirSync(dir).sort()).toEqual([`${A}.jsonl`, `${fork?.sessionId}.jsonl`].sort());
    expect(readFileSync(original).equals(bytes)).toBe(true);
    const forked = readFileSync(path.join(dir, `${fork?.sessionId}.jsonl`), 'utf8');
    expect(forked).toContain('Did step 1.');
    expect(forked).not.toContain('Step 2 second');
    expect(outcome.conversation?.prompt).toBe('Step 2 second');
    expect(outcome.conversation?.promptFromLabel).toBe(false);
    expect(renderRewind(outcome)).toMatch(/The prompt, to send again or edit:\n\nStep 2 second$/);
  });

  it('the prompt that opened the session: says why in a sentence that starts as one (issue 26)', async () => {
    const { root, deps } = await twoSessions();
    const dir = claudeProjectDir(deps.env, root);
    mkdirSync(dir, { recursive: true });
    copyFileSync(
      new URL('../fixtures/claude-code-session.jsonl', import.meta.url),
      path.join(dir, `${A}.jsonl`),
    );
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest~1',
      mode: 'conversation',
      dryRun: false,
    });
    expect(outcome.conversation).toMatchObject({ canFork: false, fork: null, prompt: 'Step 1 first' });
    expect(renderRewind(outcome)).toContain(
      'Conversation: not restored. This prompt opened the session: nothing came before it.',
    );
  });

  it('every undo hint of a rewind is the restore command that works as printed (issue 26)', async () => {
    const { root, deps } = await twoSessions();
    const outcome = await rewindTo(deps, { projectRoot: root, ref: 'latest', mode: 'code', dryRun: false });
    expect(renderRewind(outcome)).toMatch(
      /^To undo: claude-checkpoint restore \d{8}-\d{6}-[0-9a-f]{6} --yes$/m,
    );
  });

  it('a session id that could climb out of the folder names no transcript (Security)', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const deps = depsFor();
    const sessionId = '../../../escape';
    await takeSnapshot(deps, { projectRoot: root, trigger: 'prompt', label: 'Step 2 second', sessionId });
    const escaped = path.join(claudeProjectDir(deps.env, root), `${sessionId}.jsonl`);
    mkdirSync(path.dirname(escaped), { recursive: true });
    copyFileSync(new URL('../fixtures/claude-code-session.jsonl', import.meta.url), escaped);
    const before = readdirSync(path.dirname(escaped));
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      mode: 'conversation',
      dryRun: false,
    });
    expect(outcome.conversation).toMatchObject({ canFork: false, fork: null, prompt: 'Step 2 second' });
    expect(readdirSync(path.dirname(escaped))).toEqual(before);
  });
});

const fixture = (name: string) => new URL(`../fixtures/transcripts/${name}`, import.meta.url);
const GEMINI_SESSION = '1493cfc1-d907-4020-be04-5b82400ca786';
const CODEX_SESSION = '01a23534-b9d3-7892-85f6-6d7e97ff6f0a';

/** A prompt of another agent's session, as its hook records it, before `label`. */
async function agentPrompt(agent: string, sessionId: string, label: string, transcriptPath?: string) {
  const root = createRepo({ committed: { 'a.txt': 'a' } });
  const deps = depsFor();
  await takeSnapshot(deps, {
    projectRoot: root,
    trigger: 'prompt',
    label,
    sessionId,
    prompt: { agent, transcriptPath },
  });
  const rewind = (dryRun = false) =>
    rewindTo(deps, { projectRoot: root, ref: 'latest', mode: 'conversation', dryRun });
  return { root, deps, rewind, home: deps.env.HOME ?? '' };
}

describe('rewind: conversation of Gemini CLI and Codex sessions', () => {
  it('Gemini CLI: a new chat file beside the original, found by the session id in every project’s chats', async () => {
    const { rewind, home } = await agentPrompt('gemini', GEMINI_SESSION, 'Step 3 third');
    const chats = path.join(home, '.gemini', 'tmp', 'some-project', 'chats');
    mkdirSync(chats, { recursive: true });
    const original = path.join(chats, 'session-2026-12-02T11-27-1493cfc1.jsonl');
    copyFileSync(fixture('gemini-chat-resumed.jsonl'), original);
    const bytes = readFileSync(original);
    const dry = await rewind(true);
    expect(dry.conversation?.fork?.messages).toBe(10);
    expect(readdirSync(chats)).toEqual([path.basename(original)]);
    const outcome = await rewind();
    const fork = outcome.conversation?.fork;
    expect(fork?.resume).toBe(`gemini --resume ${fork?.sessionId}`);
    expect(path.dirname(fork?.transcript ?? '')).toBe(chats);
    expect(readdirSync(chats).sort()).toEqual(
      [path.basename(original), path.basename(fork?.transcript ?? '')].sort(),
    );
    expect(readFileSync(original).equals(bytes)).toBe(true);
    const forked = readFileSync(fork?.transcript ?? '', 'utf8');
    expect(JSON.parse(forked.split('\n')[0] ?? '')).toMatchObject({ sessionId: fork?.sessionId });
    expect(forked).toContain('Did step 2.');
    expect(forked).not.toContain('Step 3 third');
    expect(outcome.conversation?.prompt).toBe('Step 3 third');
  });

  it('Gemini CLI: the recorded file without the prompt (a second file a resume left) leads to the one with it', async () => {
    const home = tempDir('home-');
    const chats = path.join(home, '.gemini', 'tmp', 'p', 'chats');
    mkdirSync(chats, { recursive: true });
    copyFileSync(
      fixture('gemini-chat-resumed.jsonl'),
      path.join(chats, 'session-2026-12-02T11-27-1493cfc1.jsonl'),
    );
    const empty = path.join(chats, 'session-2026-12-02T11-28-1493cfc1.jsonl');
    writeFileSync(
      empty,
      `${JSON.stringify({ sessionId: GEMINI_SESSION, projectHash: 'p', kind: 'main' })}\n`,
    );
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: home } });
    await takeSnapshot(deps, {
      projectRoot: root,
      trigger: 'prompt',
      label: 'Step 2 second',
      sessionId: GEMINI_SESSION,
      prompt: { agent: 'gemini', transcriptPath: empty },
    });
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      mode: 'conversation',
      dryRun: false,
    });
    expect(outcome.conversation?.fork?.messages).toBe(5);
    expect(outcome.conversation?.transcript).toBe(
      path.join(chats, 'session-2026-12-02T11-27-1493cfc1.jsonl'),
    );
  });

  it('Codex: a new rollout beside the recorded one, which stays byte for byte', async () => {
    const home = tempDir('home-');
    const day = path.join(home, '.codex', 'sessions', '2026', '12', '02');
    mkdirSync(day, { recursive: true });
    const original = path.join(day, `rollout-2026-12-02T05-22-57-${CODEX_SESSION}.jsonl`);
    copyFileSync(fixture('codex-rollout.jsonl'), original);
    const bytes = readFileSync(original);
    const root = createRepo({ committed: { 'a.txt': 'a' } });
    const deps = defaultDeps({ env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: home } });
    await takeSnapshot(deps, {
      projectRoot: root,
      trigger: 'prompt',
      label: 'Thanks',
      sessionId: CODEX_SESSION,
      prompt: { agent: 'codex', promptId: '01a23534-e0b6-72a2-b98a-41586ba19d13' },
    });
    const outcome = await rewindTo(deps, {
      projectRoot: root,
      ref: 'latest',
      mode: 'conversation',
      dryRun: false,
    });
    const fork = outcome.conversation?.fork;
    expect(fork?.resume).toBe(`codex resume ${fork?.sessionId}`);
    expect(path.basename(fork?.transcript ?? '')).toMatch(
      new RegExp(`^rollout-.*-${fork?.sessionId}\\.jsonl$`),
    );
    expect(readdirSync(day).sort()).toEqual(
      [path.basename(original), path.basename(fork?.transcript ?? '')].sort(),
    );
    expect(readFileSync(original).equals(bytes)).toBe(true);
    expect(readFileSync(fork?.transcript ?? '', 'utf8')).not.toContain('Thanks');
  });

  it('a recorded path that is not the session’s transcript is not used, nor written beside (Security)', async () => {
    const elsewhere = tempDir('elsewhere-');
    const decoy = path.join(elsewhere, `rollout-x-${CODEX_SESSION}.jsonl.bak`);
    copyFileSync(fixture('codex-rollout.jsonl'), decoy);
    const named = path.join(elsewhere, `rollout-x-${CODEX_SESSION}.jsonl`);
    // The right name, but another session's content.
    writeFileSync(named, readFileSync(fixture('codex-rollout.jsonl'), 'utf8').replaceAll(CODEX_SESSION, B));
    for (const transcriptPath of [decoy, named]) {
      const { rewind } = await agentPrompt('codex', CODEX_SESSION, 'Thanks', transcriptPath);
      const outcome = await rewind();
      expect(outcome.conversation).toMatchObject({ canFork: false, fork: null, prompt: 'Thanks' });
    }
    expect(readdirSync(elsewhere).sort()).toEqual([path.basename(decoy), path.basename(named)].sort());
  });

  it('Copilot CLI: a folder of its own beside the original’s, with its events and workspace; the original’s unchanged', async () => {
    const COPILOT_SESSION = 'af86c68a-a4bb-48c1-8cf8-ba796d0575f7';
    const { rewind, home } = await agentPrompt('copilot', COPILOT_SESSION, 'Thanks');
    const state = path.join(home, '.copilot', 'session-state');
    mkdirSync(path.join(state, COPILOT_SESSION), { recursive: true });
    const events = path.join(state, COPILOT_SESSION, 'events.jsonl');
    copyFileSync(fixture('copilot-session.jsonl'), events);
    writeFileSync(path.join(state, COPILOT_SESSION, 'workspace.yaml'), `id: ${COPILOT_SESSION}\ncwd: /p\n`);
    const bytes = readFileSync(events);
    const outcome = await rewind();
    const fork = outcome.conversation?.fork;
    expect(fork?.resume).toBe(`copilot --resume ${fork?.sessionId}`);
    expect(fork?.transcript).toBe(path.join(state, fork?.sessionId ?? '', 'events.jsonl'));
    expect(readdirSync(state).sort()).toEqual([COPILOT_SESSION, fork?.sessionId].sort());
    expect(readFileSync(path.join(state, fork?.sessionId ?? '', 'workspace.yaml'), 'utf8')).toBe(
      `id: ${fork?.sessionId}\ncwd: /p\n`,
    );
    expect(readFileSync(events).equals(bytes)).toBe(true);
    expect(readFileSync(fork?.transcript ?? '', 'utf8')).not.toContain('Thanks');
  });
});

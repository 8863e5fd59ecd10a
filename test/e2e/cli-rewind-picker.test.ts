import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, runCli, runCliWithGitLog } from '../helpers/cli.js';
import { createRepo, tempDir, workerStateHome, writeTree } from '../helpers/fixtures.js';
import { readTree } from '../helpers/tree.js';

/**
 * The rewind picker driven through a real pseudo-terminal (util-linux `script`), 80x24, with NO_COLOR:
 * keys go in as a person types them, and what the terminal shows comes back.
 */

beforeAll(assertBuilt);

const SESSION = '11111111-2222-4333-8444-555555555555';
const DOWN = '\u001b[B';
const ENTER = '\r';
const ESC = '\u001b';

/** A project with three prompts of one session, each followed by a change, sent through the prompt hook. */
async function threePrompts(options: { previousSession?: string; prompts?: number } = {}) {
  const root = createRepo({ committed: { 'a.txt': 'a\n' } });
  const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
  // With a previous session, its one prompt (step 0) comes first, as before a /clear.
  const count = options.prompts ?? 3;
  const steps = [...(options.previousSession ? [0] : []), ...Array.from({ length: count }, (_, i) => i + 1)];
  for (const step of steps) {
    const input = JSON.stringify({
      session_id: step === 0 ? options.previousSession : SESSION,
      cwd: root,
      hook_event_name: 'UserPromptSubmit',
      prompt: `Step ${step}`,
    });
    const run = await runCli(['hook', 'UserPromptSubmit'], { cwd: root, env, input });
    expect(run.code).toBe(0);
    if (step > 0) writeTree(root, { 'a.txt': `a${step}\n`, [`step${step}.txt`]: `${step}\n` });
  }
  return { root, env };
}

interface Terminal {
  child: ChildProcessWithoutNullStreams;
  screen: () => string;
  waitFor: (text: string | RegExp | ((screen: string) => boolean)) => Promise<void>;
  type: (keys: string) => void;
  exit: Promise<number>;
}

/** Starts `claude-checkpoint rewind` in an 80x24 pseudo-terminal. */
function terminal(root: string, env: Record<string, string>, args: readonly string[] = []): Terminal {
  const command = `stty cols 80 rows 24; exec '${process.execPath}' '${CLI}' rewind --root '${root}' ${args.join(' ')}`;
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      TERM: 'xterm',
      NO_COLOR: '1',
      XDG_STATE_HOME: workerStateHome(),
      CHECKPOINT_HOOK_HOST: '0',
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  let closed = false;
  const exit = new Promise<number>((resolve) =>
    child.on('close', (code) => {
      closed = true;
      resolve(code ?? 1);
    }),
  );
  return {
    child,
    screen: () => output,
    waitFor: async (text) => {
      const deadline = Date.now() + 60_000;
      const seen = () =>
        typeof text === 'string'
          ? output.includes(text)
          : typeof text === 'function'
            ? text(output)
            : text.test(output);
      while (!seen()) {
        // Gone without showing it: say so now, not after the deadline.
        if (Date.now() > deadline || (closed && !seen()))
          throw new Error(`never shown: ${String(text)}\n--- screen ---\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    type: (keys) => child.stdin.write(keys),
    exit,
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]|\u001b[78]|\r/g;

describe('claude-checkpoint rewind without a terminal', () => {
  it('--list --json, exit 2 with a hint for no ref, 3 unconfirmed, 2 and one line for a bad ref; nothing changed', async () => {
    const { root, env } = await threePrompts();
    const cli = (...args: string[]) => runCli(['rewind', ...args, '--root', root], { cwd: root, env });
    const listed = JSON.parse((await cli('--list', '--json')).stdout);
    expect(listed).toMatchObject({ sessionId: SESSION, sessionSource: 'newest' });
    expect(
      listed.entries.map((entry: { prompt: string; agent: string }) => [entry.prompt, entry.agent]),
    ).toEqual([
      ['Step 3', 'claude'],
      ['Step 2', 'claude'],
      ['Step 1', 'claude'],
    ]);
    const before = readFileSync(path.join(root, 'a.txt'), 'utf8');
    const bare = await cli();
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain(`claude-checkpoint rewind --root ${root} --list --json`);
    const noMode = await cli('latest');
    expect(noMode.code).toBe(2);
    expect(noMode.stderr).toContain('--code, --conversation or --both');
    const unconfirmed = await cli('latest~1', '--code');
    expect(unconfirmed.code).toBe(3);
    expect(unconfirmed.stderr).toContain('pass --yes');
    expect(unconfirmed.stderr).not.toContain('Dry run');
    // A script that asked for JSON gets the plan it would have confirmed on stdout, as `restore --json` does.
    const unconfirmedJson = await cli('latest~1', '--code', '--json');
    expect(unconfirmedJson.code).toBe(3);
    expect(unconfirmedJson.stderr).toContain('pass --yes');
    expect(JSON.parse(unconfirmedJson.stdout)).toMatchObject({
      dryRun: true,
      entry: { prompt: 'Step 2' },
      code: { plan: { overwrite: ['a.txt'], delete: ['step2.txt', 'step3.txt'] }, undoSnapshotId: null },
    });
    const empty = await cli('', '--code', '--yes');
    expect(empty).toMatchObject({
      code: 2,
      stderr:
        'claude-checkpoint: the prompt reference is empty: give an id, a unique id prefix, latest or latest~N\n',
    });
    const twoModes = await cli('latest', '--code', '--both');
    expect(twoModes).toMatchObject({
      code: 2,
      stderr: 'claude-checkpoint: choose one of --code, --conversation, --both: got --code --both\n',
    });
    for (const ref of ['latest~3', 'nope', 'latest~'])
      expect((await cli(ref, '--code', '--yes')).stderr).toMatch(/^claude-checkpoint: [^\n]+\n$/);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(before);
    const applied = await cli('latest~1', '--code', '--yes', '--json');
    expect(applied.code).toBe(0);
    // A rewind restores the whole tree: its undo names no paths.
    const { code } = JSON.parse(applied.stdout);
    expect(code.undo).toEqual({ snapshotId: code.undoSnapshotId, paths: [] });
    expect(JSON.parse(applied.stdout).code.plan).toEqual({
      overwrite: ['a.txt'],
      create: [],
      delete: ['step2.txt', 'step3.txt'],
      keptAside: [],
      refused: [],
    });
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n');
  }, 120_000);
});

describe('rewind --session takes a unique prefix, as list shows it (new-user trial 2026-12-06)', () => {
  it('the 8 characters list shows name the session; an ambiguous prefix lists the candidates; an unknown one says where to look', async () => {
    const previous = '11112222-8888-4777-8666-555555555555';
    const { root, env } = await threePrompts({ previousSession: previous });
    const cli = (...args: string[]) => runCli(['rewind', ...args, '--root', root], { cwd: root, env });
    // `list` ("end of a turn of session 11111111") and the picker ("Session 11111111 · claude") show this.
    const before = readTree(root);
    const planned = await cli('latest~1', '--code', '--session', '11111111', '--dry-run');
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/^Prompt \S+: Step 2\n/);
    const listing = JSON.parse((await cli('--list', '--session', '11111111', '--json')).stdout);
    expect(listing).toMatchObject({ sessionId: SESSION, sessionSource: 'named' });
    expect(listing.entries).toHaveLength(3);
    const ambiguous = await cli('latest', '--code', '--session', '1111', '--dry-run');
    expect(ambiguous).toMatchObject({
      code: 2,
      stderr: `claude-checkpoint: --session '1111' is ambiguous: 2 sessions start with it (${SESSION}, ${previous}); give more of it\n`,
    });
    const unknown = await cli('latest', '--code', '--session', '99999999', '--dry-run');
    expect(unknown).toMatchObject({
      code: 2,
      stderr: `claude-checkpoint: --session: no session '99999999'; \`claude-checkpoint rewind --root ${root} --list --all\` shows the sessions\n`,
    });
    expect(readTree(root)).toEqual(before);
  }, 90_000);
});

describe('claude-checkpoint rewind in a terminal', () => {
  it('lists the prompts newest first; arrow, Enter, a digit: restores that prompt’s code', async () => {
    const { root, env } = await threePrompts();
    const term = terminal(root, env);
    await term.waitFor('Step 1');
    const shown = term.screen();
    expect(shown.indexOf('Step 3')).toBeLessThan(shown.indexOf('Step 2'));
    expect(shown.indexOf('Step 2')).toBeLessThan(shown.indexOf('Step 1'));
    expect(shown).toMatch(/claude · \+1 ~1 -0 {2}Step 3/);
    term.type(DOWN);
    await term.waitFor(/❯ .*Step 2/);
    term.type(ENTER);
    await term.waitFor('1. Restore code and conversation');
    expect(term.screen()).toContain('2. Restore conversation');
    expect(term.screen()).toContain('4. Cancel');
    term.type('3');
    expect(await term.exit).toBe(0);
    await term.waitFor('Code: restored');
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n');
    // Cursor moves and carriage returns end what was written on one row.
    const picker = term.screen().slice(0, term.screen().indexOf('Prompt '));
    const rows = picker.replace(ESCAPES, '\n');
    // NO_COLOR: no colour or bold codes; every line fits 80 columns.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes
    expect(term.screen()).not.toMatch(/\u001b\[(?:1|2|3\d|9\d)m/);
    for (const row of rows.split('\n')) expect([...row].length, row).toBeLessThanOrEqual(80);
  }, 90_000);

  it('d shows the highlighted prompt’s diff; Cancel goes back to the list; q leaves with nothing changed', async () => {
    const { root, env } = await threePrompts();
    const before = readFileSync(path.join(root, 'a.txt'), 'utf8');
    const term = terminal(root, env);
    await term.waitFor('Step 1');
    term.type('d');
    await term.waitFor('What restoring the code would change');
    await term.waitFor('step3.txt');
    term.type(' ');
    term.type(ENTER);
    await term.waitFor('4. Cancel');
    const menus = term.screen().split('4. Cancel').length;
    // Cancel: the list alone is drawn again, its header once more than before.
    const lists = term.screen().split('q/Esc quit').length;
    term.type('4');
    await term.waitFor((screen) => screen.split('q/Esc quit').length > lists);
    term.type('q');
    expect(await term.exit).toBe(3);
    expect(term.screen().split('4. Cancel').length).toBe(menus);
    expect(term.screen()).toContain('Nothing was changed.');
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe(before);
  }, 90_000);

  it('Esc: from the actions back to the list, from the list out; exit 3, nothing changed', async () => {
    const { root, env } = await threePrompts();
    const before = readTree(root);
    const ids = async () =>
      JSON.parse((await runCli(['list', '--json', '--root', root], { cwd: root, env })).stdout).snapshots.map(
        (snapshot: { id: string }) => snapshot.id,
      );
    const snapshots = await ids();
    const term = terminal(root, env);
    await term.waitFor('Step 1');
    term.type(ENTER);
    await term.waitFor('4. Cancel');
    const lists = term.screen().split('q/Esc quit').length;
    term.type(ESC);
    await term.waitFor((screen) => screen.split('q/Esc quit').length > lists);
    term.type(ESC);
    expect(await term.exit).toBe(3);
    expect(term.screen()).toContain('Nothing was changed.');
    expect(readTree(root)).toEqual(before);
    expect(await ids()).toEqual(snapshots);
  }, 90_000);

  it('rewind --yes scans the tree twice: once for the plan, once for the safety snapshot (issue 26)', async () => {
    const { root, env } = await threePrompts();
    const { result, gitCommands } = await runCliWithGitLog(
      ['rewind', 'latest~1', '--code', '--yes'],
      root,
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(root, 'a.txt'), 'utf8')).toBe('a1\n');
    expect(gitCommands.filter((command) => / status --porcelain=v2 /.test(command))).toHaveLength(2);
  }, 90_000);

  it('rewind <ref> opens on that prompt’s actions; with nothing changed after it, no code options; the prompt comes back', async () => {
    const { root, env } = await threePrompts();
    // Going back to the newest prompt's code first leaves nothing to restore after it.
    expect(
      (await runCli(['rewind', 'latest', '--code', '--yes', '--root', root], { cwd: root, env })).code,
    ).toBe(0);
    const term = terminal(root, env, ['latest']);
    await term.waitFor('Rewind to: Step 3');
    await term.waitFor('2. Cancel');
    expect(term.screen()).not.toContain('Restore code');
    term.type('1');
    // A conversation asked for and not restored exits 1 (newcomer trial).
    expect(await term.exit).toBe(1);
    // No Claude Code transcript in this HOME: said so, and the prompt is given back to send again, as
    // the snapshot's label keeps it (and said to be that).
    await term.waitFor(/Conversation: not restored\. Claude Code's transcript of session \S+ was not found/);
    await term.waitFor(
      /The prompt, to send again or edit, as its snapshot's label keeps it [^\n]*:\s+Step 3/,
    );
  }, 90_000);

  it('after /clear: the previous session is the /resume entry at the top, and choosing it prints its resume command', async () => {
    const previous = '99999999-8888-4777-8666-555555555555';
    const { root, env } = await threePrompts({ previousSession: previous });
    const term = terminal(root, env);
    // In 80 columns the id is shortened to the 8 characters every list shows; the command printed has it whole.
    await term.waitFor(`/resume ${previous.slice(0, 8)} (previous session, last prompt `);
    const shown = term.screen();
    expect(shown.indexOf(`/resume ${previous.slice(0, 8)}`)).toBeLessThan(shown.indexOf('Step 3'));
    expect(shown).toMatch(/❯ .*Step 3/);
    term.type('\u001b[A');
    await term.waitFor(`❯ /resume ${previous.slice(0, 8)}`);
    term.type(ENTER);
    expect(await term.exit).toBe(0);
    // Run with --root: the agent is started in the project, where it finds its sessions.
    await term.waitFor(`Continue the previous session: cd ${root} && claude --resume ${previous}`);
  }, 90_000);

  it('right after /clear, before the new session prompts: the picker opens on the previous session (new-user trial 4)', async () => {
    const cleared = '77777777-8888-4777-8666-555555555555';
    const { root, env } = await threePrompts();
    // The new session has started (SessionStart, source clear) and sent nothing yet.
    const start = await runCli(['hook', 'SessionStart'], {
      cwd: root,
      env,
      input: JSON.stringify({
        session_id: cleared,
        cwd: root,
        hook_event_name: 'SessionStart',
        source: 'clear',
      }),
    });
    expect(start.code).toBe(0);
    const term = terminal(root, { ...env, CLAUDE_CODE_SESSION_ID: cleared });
    await term.waitFor(`❯ /resume ${SESSION.slice(0, 8)} (previous session, last prompt `);
    expect(term.screen()).toContain(`Rewind: session ${cleared} has no prompts yet`);
    expect(term.screen()).not.toContain('has no prompts here');
    term.type(ENTER);
    expect(await term.exit).toBe(0);
    await term.waitFor(`Continue the previous session: cd ${root} && claude --resume ${SESSION}`);
  }, 90_000);

  it('rewind --list right after /clear: the new session has no prompts yet, and the list says where the others are', async () => {
    const { root, env } = await threePrompts();
    const cleared = '77777777-8888-4777-8666-555555555555';
    const listed = await runCli(['rewind', '--list'], {
      cwd: root,
      env: { ...env, CLAUDE_CODE_SESSION_ID: cleared },
    });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(
      "(no prompts yet: `claude-checkpoint rewind --list --all` shows the other sessions' prompts and how to resume them)",
    );
  });

  it('a session that prompted after this one began is "other session", never "previous" (new-user trial 4)', async () => {
    const other = '99999999-8888-4777-8666-555555555555';
    const { root, env } = await threePrompts();
    // The other session, still running in another terminal, prompts after this one's prompts.
    const prompt = await runCli(['hook', 'UserPromptSubmit'], {
      cwd: root,
      env,
      input: JSON.stringify({
        session_id: other,
        cwd: root,
        hook_event_name: 'UserPromptSubmit',
        prompt: 'Elsewhere',
      }),
    });
    expect(prompt.code).toBe(0);
    const term = terminal(root, { ...env, CLAUDE_CODE_SESSION_ID: SESSION });
    await term.waitFor(`/resume ${other.slice(0, 8)} (other session, last prompt `);
    expect(term.screen()).not.toContain('previous session');
    term.type('\u001b[A');
    await term.waitFor(`❯ /resume ${other.slice(0, 8)}`);
    term.type(ENTER);
    expect(await term.exit).toBe(0);
    await term.waitFor(
      /Continue the other session \(last prompt [^;]+; if it is still open, go on there instead\): cd /,
    );
    expect(term.screen()).not.toContain('Continue the previous session');
  }, 90_000);
});

describe('claude-checkpoint rewind in a terminal, several sessions', () => {
  const CLAUDE = 'aaaaaaaa-1111-4222-8333-444444444444';
  const CODEX = 'bbbbbbbb-1111-4222-8333-444444444444';

  /** Claude Code and Codex take turns in one project: Alpha 1, Beta 1, Alpha 2, Beta 2 (newest). */
  async function twoAgents() {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'), HOME: tempDir('home-') };
    const turns = [
      ['claude', CLAUDE, 'Alpha 1'],
      ['codex', CODEX, 'Beta 1'],
      ['claude', CLAUDE, 'Alpha 2'],
      ['codex', CODEX, 'Beta 2'],
    ] as const;
    for (const [index, [agent, session, prompt]] of turns.entries()) {
      const input = JSON.stringify({
        session_id: session,
        cwd: root,
        hook_event_name: 'UserPromptSubmit',
        prompt,
      });
      const run = await runCli(['hook', 'UserPromptSubmit', '--agent', agent], { cwd: root, env, input });
      expect(run.code).toBe(0);
      writeTree(root, { [`turn${index + 1}.txt`]: `${prompt}\n` });
    }
    return { root, env };
  }

  it('--all: each session under a header naming it and its resume command, prompts newest first; headers cannot be chosen', async () => {
    const { root, env } = await twoAgents();
    const before = readTree(root);
    const term = terminal(root, env, ['--all']);
    await term.waitFor('Alpha 1');
    const shown = term.screen();
    const order = [
      'Session bbbbbbbb · codex',
      `resume: codex resume ${CODEX}`,
      'Beta 2',
      'Beta 1',
      'Session aaaaaaaa · claude',
      `resume: claude --resume ${CLAUDE}`,
      'Alpha 2',
      'Alpha 1',
    ].map((text) => shown.indexOf(text));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(shown).toMatch(/Session bbbbbbbb · codex · (just now|\d+s ago) \(prompted last\)/);
    expect(shown).toMatch(/❯ .*Beta 2/);
    // Up from the first prompt: the header above it is not a row to stand on.
    term.type('\u001b[A');
    // Down twice: from Beta 2 over Beta 1 and past Claude Code's header, onto Alpha 2.
    term.type(DOWN);
    await term.waitFor(/❯ .*Beta 1/);
    term.type(DOWN);
    await term.waitFor(/❯ .*Alpha 2/);
    expect(term.screen()).not.toMatch(/❯ *Session/);
    term.type(ENTER);
    await term.waitFor('Rewind to: Alpha 2');
    const picker = term.screen();
    term.type('q');
    await term.waitFor((screen) => screen.split('q/Esc quit').length > picker.split('q/Esc quit').length);
    term.type('q');
    expect(await term.exit).toBe(3);
    expect(readTree(root)).toEqual(before);
    // NO_COLOR, and every line within 80 columns.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes
    expect(term.screen()).not.toMatch(/\u001b\[(?:1|2|3\d|9\d)m/);
    for (const row of term.screen().replace(ESCAPES, '\n').split('\n'))
      expect([...row].length, row).toBeLessThanOrEqual(80);
  }, 90_000);

  it('rewind <id> of another session opens on that prompt’s actions, among every session’s prompts, and restores it', async () => {
    const { root, env } = await twoAgents();
    const listed = JSON.parse(
      (await runCli(['rewind', '--list', '--all', '--json', '--root', root], { cwd: root, env })).stdout,
    ) as {
      sessionId: string;
      sessions: Array<{ sessionId: string; entries: Array<{ id: string; prompt: string }> }>;
    };
    // Codex prompted last; Claude Code's first prompt is of another session.
    expect(listed.sessionId).toBe(CODEX);
    const alpha1 = listed.sessions.find((session) => session.sessionId === CLAUDE)?.entries.at(-1);
    expect(alpha1?.prompt).toBe('Alpha 1');
    const term = terminal(root, env, [alpha1?.id.slice(0, 18) ?? '']);
    await term.waitFor('Rewind to: Alpha 1');
    expect(term.screen()).toContain(`resume: claude --resume ${CLAUDE}`);
    expect(term.screen()).toMatch(/❯ .*Alpha 1/);
    term.type('3');
    // Codex's work after the prompt is named before anything is written.
    await term.waitFor('Restore anyway?');
    expect(term.screen()).toMatch(/turn2\.txt — session bbbbbbbb-1111-4222-8333-444444444444 \(codex\)/);
    // One key, as every choice before it (new-user trial 2026-12-06): no Enter after it.
    term.type('y');
    expect(await term.exit).toBe(0);
    await term.waitFor('Code: restored');
    // As just before Alpha 1: none of the four turns' files.
    expect(Object.keys(readTree(root)).sort()).toEqual(['.gitignore', 'a.txt']);
  }, 90_000);

  it.each([
    ['n', 'n'],
    ['Enter (the default, N)', ENTER],
    ['Esc', ESC],
  ])(
    'Restore anyway? answered with %s as one key: nothing changed, exit 3',
    async (_name, key) => {
      const { root, env } = await twoAgents();
      const before = readTree(root);
      const term = terminal(root, env, ['--all']);
      await term.waitFor('Alpha 1');
      // Down three times: Beta 1, then past the header onto Alpha 2, then Alpha 1.
      for (const prompt of ['Beta 1', 'Alpha 2', 'Alpha 1']) {
        term.type(DOWN);
        await term.waitFor(new RegExp(`❯ .*${prompt}`));
      }
      term.type(ENTER);
      await term.waitFor('Rewind to: Alpha 1');
      term.type('3');
      await term.waitFor('Restore anyway?');
      expect(term.screen()).toContain('Restore anyway? [y/N]');
      term.type(key);
      expect(await term.exit).toBe(3);
      expect(term.screen()).toContain('Nothing was changed.');
      expect(readTree(root)).toEqual(before);
    },
    90_000,
  );
});

describe('the picker in 80x24 with many prompts (newcomer trial, item 8)', () => {
  it('30 prompts: the title fits the line, and the rows cut off below, then above, are said to be there', async () => {
    const { root, env } = await threePrompts({ prompts: 30 });
    const term = terminal(root, env);
    await term.waitFor('↓ 20 more below');
    // The whole id made the title 81 characters, which wrapped: the first 8 characters, as lists show it.
    const title = term
      .screen()
      .replace(ESCAPES, '')
      .split('\n')
      .find((line) => line.includes('Rewind: session'));
    expect(title).toBe(`Rewind: session ${SESSION.slice(0, 8)} (30 prompt(s)), newest first`);
    expect(term.screen()).not.toContain('more above');
    term.type(DOWN.repeat(15));
    await term.waitFor('↑ 10 more above');
    await term.waitFor('↓ 10 more below');
    term.type('q');
    expect(await term.exit).toBe(3);
  }, 120_000);

  it('no prompt recorded: says how prompts get recorded and where the snapshots are', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const term = terminal(root, {
      CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
      HOME: tempDir('home-'),
    });
    await term.waitFor("the agent's hooks record them (the plugin, or `claude-checkpoint setup <agent>`)");
    expect(await term.exit).toBe(0);
  }, 60_000);
});

import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, git, tempDir, writeTree } from '../helpers/fixtures.js';
import { bareRemote, cli, machine } from '../helpers/handoff.js';

beforeAll(assertBuilt);

/**
 * What a remote or a file name can put on a terminal: nothing but text. Names with a line feed cannot
 * forge a line of a plan, and escape sequences (retitle, clear the screen) are shown, not obeyed.
 */

const TITLE = '\u001b]0;owned\u0007';
const CLEAR = '\u001b[2J\u001b[H';
// A name that, printed raw, adds a line that looks like part of the plan.
const FORGED = 'notes\nDelete (1):\n  README.md';
const FORGED_LINE = /^\s*README\.md$/m;

function expectInert(output: string): void {
  const controls = [...output].filter(
    (char) => (char < ' ' && char !== '\n' && char !== '\t') || char === '\u007f',
  );
  expect(controls).toEqual([]);
  expect(output).not.toMatch(FORGED_LINE);
}

describe('terminal output escapes what comes from a remote or a file name', () => {
  it('handoff list and pull: the author, goal and file names of a crafted handoff are shown escaped', async () => {
    const { bare } = bareRemote();
    const url = `file://${bare}`;
    const a = machine(url, 'Alice');
    const b = machine(url, 'Bob');
    writeTree(a.root, { [FORGED]: 'x\n', [`title${TITLE}.txt`]: 'y\n' });
    expect((await cli(a, 'save', '--goal', 'Ship it')).code).toBe(0);
    expect((await cli(a, 'handoff', 'push', '--name', 'crafted')).code).toBe(0);

    // Rewrite the handoff on the remote as a hostile remote could: escape sequences in author and goal.
    const ref = 'refs/claude-checkpoint/handoff/crafted';
    const original = execFileSync('git', ['cat-file', 'commit', ref], { cwd: bare, encoding: 'utf8' });
    const [headers = '', body = ''] = original.split(/\n\n(.*)/s);
    const meta = JSON.parse(body.slice(body.indexOf('\n\n') + 2));
    // The goal in the checkpoint too: list and pull show the checkpoint's, not the message's copy.
    const checkpoint = JSON.parse(meta.checkpoint);
    checkpoint.goal.primary = `Fix it\u001b[8mhidden`;
    const forgedMeta = {
      ...meta,
      author: `${TITLE}Mallory${CLEAR}`,
      goal: `Fix it\u001b[8mhidden`,
      checkpoint: JSON.stringify(checkpoint),
    };
    const forged = git(
      bare,
      'commit-tree',
      /^tree (\S+)/m.exec(headers)?.[1] ?? '',
      '-p',
      meta.base,
      '-m',
      `claude-checkpoint handoff crafted\n\n${JSON.stringify(forgedMeta)}`,
    ).trim();
    git(bare, 'update-ref', ref, forged);

    const listed = await cli(b, 'handoff', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expectInert(listed.stdout);
    expect(listed.stdout).toContain('\\033]0;owned\\aMallory\\033[2J\\033[H');
    expect(listed.stdout).toContain('Fix it\\033[8mhidden');

    for (const args of [
      ['handoff', 'pull', '--name', 'crafted', '--dry-run'],
      ['handoff', 'pull', '--name', 'crafted'],
    ]) {
      const shown = await cli(b, ...args);
      const output = shown.stdout + shown.stderr;
      expectInert(output);
      expect(output).toContain('"notes\\nDelete (1):\\n  README.md"');
      expect(output).toContain('"title\\033]0;owned\\a.txt"');
      expect(output).toContain('by \\033]0;owned\\aMallory');
      expect(output).toContain('Fix it\\033[8mhidden');
    }
  }, 180_000);

  it("handoff list and pull: control characters in a forged handoff's branch never reach the terminal", async () => {
    const { bare } = bareRemote();
    const url = `file://${bare}`;
    const a = machine(url, 'Alice');
    const b = machine(url, 'Bob');
    writeTree(a.root, { 'src/app.ts': 'A\n' });
    git(a.root, 'commit', '-q', '-am', 'A moves on');
    expect((await cli(a, 'handoff', 'push', '--name', 'branchy')).code).toBe(0);
    // B is on another commit than the handoff's base: the pull names the base and its branch.
    const ref = 'refs/claude-checkpoint/handoff/branchy';
    const original = execFileSync('git', ['cat-file', 'commit', ref], { cwd: bare, encoding: 'utf8' });
    const [headers = '', body = ''] = original.split(/\n\n(.*)/s);
    const meta = JSON.parse(body.slice(body.indexOf('\n\n') + 2));
    const forge = (branch: string) => {
      const forged = git(
        bare,
        'commit-tree',
        /^tree (\S+)/m.exec(headers)?.[1] ?? '',
        '-p',
        meta.base,
        '-m',
        `claude-checkpoint handoff branchy\n\n${JSON.stringify({ ...meta, branch })}`,
      ).trim();
      git(bare, 'update-ref', ref, forged);
    };
    // Not a control character below a space, so a valid branch name, yet one a terminal may obey: a C1
    // control (CSI), a right-to-left override.
    const raw = (text: string) =>
      [...text].filter((char) => {
        const code = char.codePointAt(0) ?? 0;
        return (
          (code < 0x20 && char !== '\n' && char !== '\t') ||
          (code >= 0x7f && code <= 0x9f) ||
          (code >= 0x202a && code <= 0x202e) ||
          (code >= 0x2066 && code <= 0x2069)
        );
      });

    forge('feat\u009b2J\u202eevil');
    const listed = await cli(b, 'handoff', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(raw(listed.stdout)).toEqual([]);
    expect(listed.stdout).toContain('feat\\302\\2332J\\342\\200\\256evil@');
    const pulled = await cli(b, 'handoff', 'pull', '--name', 'branchy', '--yes');
    expect(pulled.code).toBe(1);
    expect(raw(pulled.stdout + pulled.stderr)).toEqual([]);
    expect(pulled.stderr).toContain('(branch feat\\302\\2332J\\342\\200\\256evil)');

    // An escape sequence itself: not a branch name, so the handoff is refused, and says so escaped.
    forge(`main${TITLE}${CLEAR}`);
    const listedEsc = await cli(b, 'handoff', 'list');
    expect(listedEsc.code, listedEsc.stderr).toBe(0);
    expect(raw(listedEsc.stdout + listedEsc.stderr)).toEqual([]);
    for (const args of [
      ['handoff', 'pull', '--name', 'branchy', '--dry-run'],
      ['handoff', 'pull', '--name', 'branchy', '--yes'],
    ]) {
      const shown = await cli(b, ...args);
      expect(shown.code).toBe(1);
      expect(raw(shown.stdout + shown.stderr)).toEqual([]);
      expect(shown.stderr).toContain(
        "its branch 'main\\033]0;owned\\a\\033[2J\\033[H' is not a plain branch name",
      );
    }
  }, 180_000);

  it('restore plans, diff and the brief quote a file name with a line feed or an escape sequence', async () => {
    const root = createRepo({ committed: { 'README.md': '# Project\n' } });
    const env = { CHECKPOINT_STORE_DIR: tempDir('escaping-store-') };
    const run = (...args: string[]) => runCli(args, { cwd: root, env });
    writeTree(root, { [FORGED]: 'one\n', [`clear${CLEAR}.txt`]: `content ${TITLE}\n` });
    expect((await run('snapshot')).code).toBe(0);
    writeTree(root, { [FORGED]: 'two\n', [`clear${CLEAR}.txt`]: `changed ${CLEAR}\n` });

    const plan = await run('restore', 'latest', '--dry-run');
    expect(plan.code, plan.stderr).toBe(0);
    expectInert(plan.stdout);
    expect(plan.stdout).toContain('  "notes\\nDelete (1):\\n  README.md"');
    expect(plan.stdout).toContain('  "clear\\033[2J\\033[H.txt"');

    const unconfirmed = await run('restore', 'latest');
    expect(unconfirmed.code).toBe(3);
    expectInert(unconfirmed.stderr);

    const diff = await run('diff', 'latest');
    expectInert(diff.stdout);
    expect(diff.stdout).toContain('"notes\\nDelete (1):\\n  README.md"');
    const patch = await run('diff', 'latest', `clear${CLEAR}.txt`);
    expectInert(patch.stdout);
    expect(patch.stdout).toContain('content \\033]0;owned\\a');

    expect((await run('save', '--goal', `Goal${TITLE}`, '--file', FORGED)).code).toBe(0);
    writeTree(root, { [FORGED]: 'three\n' });
    const brief = await run('brief');
    expect(brief.code, brief.stderr).toBe(0);
    expectInert(brief.stdout);
    expect(brief.stdout).toContain('"notes\\nDelete (1):\\n  README.md"');
  }, 180_000);
});

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

/** A project with two saves (a checkpoint and its backup), and the environment to run the CLI in. */
async function savedTwice() {
  const root = createRepo({ committed: { 'a.txt': 'a\n' } });
  const env = { HOME: tempDir('home-') };
  for (const goal of ['first', 'second']) await runCli(['save', '--goal', goal], { cwd: root, env });
  return { root, env, file: path.join(root, '.claude-checkpoint') };
}

describe('a damaged .claude-checkpoint (input audit)', () => {
  it('a save names the copy it kept, .damaged-2 after .damaged, and brief names both', async () => {
    const { root, env, file } = await savedTwice();
    const prev = readFileSync(`${file}.prev`);
    writeFileSync(file, '{ first bad edit');
    await runCli(['save', '--goal', 'third', '--merge'], { cwd: root, env });
    writeFileSync(file, '{ second bad edit');
    const saved = await runCli(['save', '--goal', 'fourth', '--merge'], { cwd: root, env });
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(
      'The unusable .claude-checkpoint this save replaced is kept as .claude-checkpoint.damaged-2: copy',
    );
    expect(readFileSync(`${file}.damaged-2`, 'utf8')).toBe('{ second bad edit');
    expect(readFileSync(`${file}.prev`)).toEqual(prev);
    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.stdout).toContain('kept as .claude-checkpoint.damaged, .claude-checkpoint.damaged-2: copy');
  });

  // Windows editors write one; JSON.parse refused it, and the user's edit was set aside as damaged.
  it('a byte order mark before a hand edit is no damage: brief and a merge read the file', async () => {
    const { root, env, file } = await savedTwice();
    const edited = readFileSync(file, 'utf8').replace('"second"', '"second, edited in Notepad"');
    writeFileSync(file, `\ufeff${edited}`);
    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.stdout).toContain('second, edited in Notepad');
    expect(brief.stdout).not.toMatch(/unusable|backup/);
    const saved = await runCli(['save', '--goal', 'third', '--merge', '--decision', 'd'], { cwd: root, env });
    expect(saved.stdout).not.toMatch(/damaged|unusable/);
    expect(JSON.parse(readFileSync(`${file}.prev`, 'utf8').slice(1)).goal.primary).toBe(
      'second, edited in Notepad',
    );
  });

  // A merge carried a hand-edited 70,000-character summary over without a word, past the 64 KB cap.
  it('a field over its limit is named with its limit by brief, and a merge cuts it, the file before kept as .damaged', async () => {
    const { root, env, file } = await savedTwice();
    const edited = JSON.parse(readFileSync(file, 'utf8'));
    edited.summary = 's'.repeat(70_000);
    edited.nextSteps = Array.from({ length: 25 }, (_, at) => `step ${at}`);
    writeFileSync(file, JSON.stringify(edited));
    const handEdited = readFileSync(file);
    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.stdout).toContain(
      '.claude-checkpoint holds fields over their limits (a hand edit?): summary (70000 characters; limit 4000), nextSteps (25 items; limit 20).',
    );
    const saved = await runCli(['save', '--goal', 'third', '--merge'], { cwd: root, env });
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(
      'This save cut them to their limits; the file as it was is kept as .claude-checkpoint.damaged: copy',
    );
    expect(saved.stdout).not.toContain('The next save');
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect([...written.summary]).toHaveLength(4000);
    expect(written.nextSteps).toHaveLength(20);
    expect(readFileSync(file).length).toBeLessThanOrEqual(64 * 1024);
    expect(readFileSync(`${file}.prev`)).toEqual(handEdited);
    const after = (await runCli(['brief'], { cwd: root, env })).stdout;
    expect(after).not.toContain('over their limits');
    expect(after).toContain('kept as .claude-checkpoint.damaged: copy');
    // The backup rotates at the next write; the uncut file does not go with it.
    expect((await runCli(['save', '--goal', 'fourth', '--merge'], { cwd: root, env })).code).toBe(0);
    expect(readFileSync(`${file}.damaged`)).toEqual(handEdited);
  });

  // Bad-input trial: load named a field over its limit, status said nothing of it.
  it('status and doctor name a field over its limit as load does', async () => {
    const { root, env, file } = await savedTwice();
    const edited = JSON.parse(readFileSync(file, 'utf8'));
    edited.summary = 's'.repeat(5000);
    writeFileSync(file, JSON.stringify(edited));
    const notice =
      '.claude-checkpoint holds fields over their limits (a hand edit?): summary (5000 characters; limit 4000). A save cuts them';
    expect((await runCli(['load'], { cwd: root, env })).stdout).toContain(notice);
    const status = await runCli(['status'], { cwd: root, env });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`  Note: ${notice}`);
    const doctor = await runCli(['doctor'], { cwd: root, env });
    expect(doctor.stdout).toMatch(/checkpoint limits: \.claude-checkpoint holds fields over their limits/);
  });

  // Bad-input trial: a byte that is not UTF-8 was read as U+FFFD, and the next save wrote that over it.
  // Then (review): handled as a damaged file, one Latin-1 byte sent loads and automatic saves back to the
  // older backup. Read as U+FFFD, said, and kept byte for byte by the next write.
  it('a file that is not all UTF-8 is read, named with the byte offset, and kept whole by a save', async () => {
    const { root, env, file } = await savedTwice();
    const text = readFileSync(file);
    const at = text.indexOf('"second"') + 4;
    const latin1 = Buffer.concat([text.subarray(0, at), Buffer.from([0xe9]), text.subarray(at + 1)]);
    writeFileSync(file, latin1);
    const backupId = JSON.parse(readFileSync(`${file}.prev`, 'utf8')).id;
    const notice = `.claude-checkpoint is not all UTF-8 text (the byte at offset ${at} (0xe9) is not UTF-8 (text in another encoding, such as Latin-1?)): it was read with U+FFFD in place of such bytes.`;
    for (const command of ['load', 'brief']) {
      const read = await runCli([command], { cwd: root, env });
      expect(read.code).toBe(0);
      expect(read.stdout).toContain(notice);
      expect(read.stdout).toContain('sec\ufffdnd');
      expect(read.stdout).not.toContain('loaded the backup');
    }
    expect((await runCli(['status'], { cwd: root, env })).stdout).toContain(`  Note: ${notice}`);
    const doctor = (await runCli(['doctor'], { cwd: root, env })).stdout;
    expect(doctor).toContain(`! checkpoint encoding: ${notice}`);
    expect(doctor).toContain(`checkpoint: ${file}`);
    const saved = await runCli(['save', '--goal', 'third', '--merge'], { cwd: root, env });
    expect(saved.code).toBe(0);
    expect(saved.stdout).toContain(
      '.claude-checkpoint held bytes that are not UTF-8 (a hand edit in another encoding?), read as U+FFFD: the file as it was is kept as .claude-checkpoint.damaged: copy',
    );
    expect(saved.stdout).not.toContain(notice);
    expect(readFileSync(`${file}.damaged`)).toEqual(latin1);
    // The merge went on from the file's own checkpoint (a replace gave each save its own id), not the backup's.
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.id).toBe(JSON.parse(latin1.toString('utf8')).id);
    expect(written.id).not.toBe(backupId);
    expect(written.goal.primary).toBe('third');
    // Kept once: the next save finds a file that is all UTF-8.
    await runCli(['save', '--goal', 'fourth', '--merge'], { cwd: root, env });
    expect(existsSync(`${file}.damaged-2`)).toBe(false);
  });

  it("a hook's automatic save keeps the state of a file that is not all UTF-8, not the backup's", async () => {
    const { root, env, file } = await savedTwice();
    await runCli(['save', '--goal', 'caf\u00e9', '--task', 'in_progress:newer', '--merge'], {
      cwd: root,
      env,
    });
    const text = readFileSync(file);
    const at = text.indexOf('caf') + 3;
    const latin1 = Buffer.concat([text.subarray(0, at), Buffer.from([0xe9]), text.subarray(at + 2)]);
    writeFileSync(file, latin1);
    const hooked = await runCli(['hook', 'PreCompact'], {
      cwd: root,
      env,
      input: JSON.stringify({ hook_event_name: 'PreCompact', trigger: 'auto', cwd: root }),
    });
    expect(hooked.code).toBe(0);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.goal.primary).toBe('caf\ufffd');
    expect(after.goal.tasks).toEqual([{ description: 'newer', status: 'in_progress' }]);
    expect(readFileSync(`${file}.damaged`)).toEqual(latin1);
  });

  it('a UTF-16 file, and one that is not UTF-8 with no backup: named as such, and kept whole by a save', async () => {
    const root = createRepo({ committed: { 'a.txt': 'a\n' } });
    const env = { HOME: tempDir('home-') };
    expect((await runCli(['save', '--goal', 'g'], { cwd: root, env })).code).toBe(0);
    const file = path.join(root, '.claude-checkpoint');
    // What PowerShell 5.1's `>` writes: UTF-16LE with a byte order mark.
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(readFileSync(file, 'utf8'), 'utf16le'),
    ]);
    writeFileSync(file, utf16);
    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.code).toBe(1);
    expect(brief.stderr).toContain(
      `${file} is unusable (it is not UTF-8 text: it begins with a UTF-16 byte order mark (0xff 0xfe at byte offset 0))`,
    );
    const saved = await runCli(['save', '--goal', 'again'], { cwd: root, env });
    expect(saved.stdout).toContain('kept as .claude-checkpoint.damaged: copy');
    expect(readFileSync(`${file}.damaged`)).toEqual(utf16);
  });

  // Both damaged: the message said only "there is no valid backup", and the second save after it replaced
  // the damaged backup, someone's bytes too, without keeping it.
  it('a damaged backup is named with what is wrong, and kept before a save replaces it', async () => {
    const { root, env, file } = await savedTwice();
    writeFileSync(file, '{ bad main');
    writeFileSync(`${file}.prev`, '{ bad backup');
    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.stderr).toContain(
      "and its backup .claude-checkpoint.prev is unusable too (checkpoint is not valid JSON (Expected property name or '}' in JSON at position 2))",
    );
    await runCli(['save', '--goal', 'third'], { cwd: root, env });
    expect(readFileSync(`${file}.damaged`, 'utf8')).toBe('{ bad main');
    const saved = await runCli(['save', '--goal', 'fourth'], { cwd: root, env });
    expect(saved.stdout).toContain(
      'The backup .claude-checkpoint.prev this save replaced was damaged or not all UTF-8; it is kept as it was, as .claude-checkpoint.damaged-2: copy',
    );
    expect(readFileSync(`${file}.damaged-2`, 'utf8')).toBe('{ bad backup');
    expect(JSON.parse(readFileSync(`${file}.prev`, 'utf8')).goal.primary).toBe('third');
  });

  // Every save and hook failed with "Maximum call stack size exceeded": unknown fields are rewritten
  // recursively.
  it('a field nested 100,000 levels deep is named with the depth limit, and the file is kept aside', async () => {
    const { root, env, file } = await savedTwice();
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const edited = readFileSync(file, 'utf8').replace('"version": 1,', `"version": 1, "extra": ${deep},`);
    writeFileSync(file, edited);
    const brief = await runCli(['brief'], { cwd: root, env });
    expect(brief.stdout).toContain('checkpoint field extra nests more than 64 levels deep');
    const saved = await runCli(['save', '--goal', 'third', '--merge'], { cwd: root, env });
    expect(saved.code).toBe(0);
    expect(readFileSync(`${file}.damaged`, 'utf8')).toBe(edited);
    expect(JSON.parse(readFileSync(file, 'utf8')).goal.primary).toBe('third');
  });
});

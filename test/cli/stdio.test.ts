import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI, childEnv, PLAIN_CLI } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { builtinsTrace } from '../helpers/loads.js';

beforeAll(assertBuilt);

const STDIO = pathToFileURL(path.join(path.dirname(PLAIN_CLI), 'cli', 'stdio.js')).href;

/** Runs a script against the built cli/stdio.js with stdout going to `stdout`; what it wrote to stderr. */
function probe(stdout: 'pipe' | 'ignore' | number, script: string) {
  const result = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `import * as stdio from ${JSON.stringify(STDIO)};\n${script}`],
    { stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8' },
  );
  expect(result.status, result.stderr).toBe(0);
  return { stdout: result.stdout ?? '', stderr: result.stderr };
}

const REPORT = `const plain = stdio.isPlainOutput(1);
stdio.writeText(1, 'héllo\\n');
process.stderr.write(JSON.stringify({ plain, terminal: stdio.isTerminal(1) }));`;

describe('the CLI writes to a pipe, a file or /dev/null as they are', () => {
  it('a pipe', () => {
    const { stdout, stderr } = probe('pipe', REPORT);
    expect(stdout).toBe('héllo\n');
    expect(JSON.parse(stderr)).toEqual({ plain: true, terminal: false });
  });

  it('a file, whole, in order with later writes', () => {
    const file = path.join(tempDir('cli-stdio-'), 'out.txt');
    const fd = openSync(file, 'w');
    probe(fd, `${REPORT}\nstdio.writeText(1, 'x'.repeat(200000)); stdio.writeText(1, 'end\\n');`);
    closeSync(fd);
    const written = readFileSync(file, 'utf8');
    expect(written.startsWith('héllo\n')).toBe(true);
    expect(written.endsWith(`${'x'.repeat(10)}end\n`)).toBe(true);
    expect(written.length).toBe('héllo\n'.length + 200000 + 4);
  });

  it('/dev/null counts as plain, not as a terminal, though it is a character device', () => {
    const { stderr } = probe('ignore', REPORT);
    expect(JSON.parse(stderr)).toEqual({ plain: true, terminal: false });
  });

  it('a reader gone (EPIPE): later writes are dropped, the process goes on to its end', async () => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import * as stdio from ${JSON.stringify(STDIO)};
for (let i = 0; i < 2000; i++) stdio.writeText(1, 'line '.repeat(100) + '\\n');
process.stderr.write('done ' + String(stdio.isPlainOutput(1)));`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe('done true');
    expect(code).toBe(0);
  });
});

/** Node's own modules `claude-checkpoint --help` (the npm bin) loaded with its stdout going to `stdout`. */
function builtinsOfHelp(stdout: 'pipe' | 'ignore' | number): string[] {
  const trace = builtinsTrace();
  const result = spawnSync(process.execPath, ['--require', trace.preload, CLI, '--help'], {
    stdio: ['ignore', stdout, 'pipe'],
    encoding: 'utf8',
    env: childEnv(),
  });
  expect(result.status, result.stderr).toBe(0);
  return trace.builtins();
}

describe('the bin’s output to a pipe, a file or /dev/null builds no stream (issue 26: start-up)', () => {
  it.each(['pipe', 'ignore', 'file'] as const)('%s', (kind) => {
    const fd = kind === 'file' ? openSync(path.join(tempDir('cli-stdio-'), 'help.txt'), 'w') : undefined;
    try {
      const builtins = builtinsOfHelp(kind === 'file' ? (fd as number) : kind);
      for (const name of ['stream', 'net', 'tty']) expect(builtins).not.toContain(name);
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  });
});

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { onTestFinished } from 'vitest';
import { applyJournal, type JournalRecord, parseJournalRecord } from '../../src/core/journal.js';
import { type Checkpoint, parseCheckpoint } from '../../src/core/schema.js';
import { PACKAGE_VERSION, RELAY_PROTOCOL, type RelayRequest } from '../../src/hooks/relay-protocol.js';
import { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { readJournal } from '../../src/store/command-journal.js';
import { nodeFs } from '../../src/store/fs-seam.js';
import { type CliResult, runNodeScript, SHIPPED_HOOK_ENTRY } from './cli.js';
import { tempDir } from './fixtures.js';

/**
 * hook.cjs and its front alone, with no bundle beside them: they can only run an event through a server
 * or host that takes it, which is how tests tell a relayed hook from one that ran itself.
 */
export function relayOnlyHook(): string {
  const entry = path.join(tempDir('relay-only-'), 'hook.cjs');
  copyFileSync(SHIPPED_HOOK_ENTRY, entry);
  copyFileSync(
    path.join(path.dirname(SHIPPED_HOOK_ENTRY), 'hook-front.cjs'),
    path.join(path.dirname(entry), 'hook-front.cjs'),
  );
  return entry;
}

export const bashInput = (root: string, command: string) =>
  JSON.stringify({ cwd: root, tool_name: 'Bash', tool_input: { command }, tool_response: {} });

/**
 * The checkpoint in `root` as every read shows it: the file's, with its command journal's waiting records
 * applied (a server answers a Bash hook once the command is in the journal, and merges it into the file
 * right after; a Bash hook on its own leaves it there for the lock's next holder).
 */
export function shownCheckpoint(root: string): Checkpoint {
  const file = path.join(root, '.claude-checkpoint');
  // As CheckpointStore.load: a merge between the two reads renamed a new file into place; read again.
  const identity = () => {
    const stats = statSync(file);
    return `${stats.ino}:${stats.mtimeMs}:${stats.size}`;
  };
  for (let attempt = 0; ; attempt++) {
    const before = identity();
    const checkpoint = parseCheckpoint(readFileSync(file, 'utf8'));
    const records: JournalRecord[] = [];
    for (const { id, text } of readJournal(nodeFs, `${file}.journal`)?.files ?? []) {
      const record = parseJournalRecord(id, text);
      if (record && record !== 'newer') records.push(record);
    }
    if (identity() !== before && attempt < 3) continue;
    const merged = applyJournal(checkpoint, records, new Date());
    return merged.changed ? merged.checkpoint : checkpoint;
  }
}

/** The commands the checkpoint in `root` has recorded, oldest first, as every read shows them. */
export const recordedCommands = (root: string): string[] =>
  shownCheckpoint(root).recentCommands.map((entry) => entry.command);

/**
 * Takes the checkpoint's lock and lets it go, as its next holder (the end of the turn, a save) does: the
 * journal's waiting records are merged into the file. A Bash hook on its own only journals its command.
 */
export async function mergeJournal(root: string): Promise<void> {
  await new CheckpointStore(root).withLock(async () => undefined);
}

/** The commands the checkpoint file itself holds, journal aside. */
export const commandsInFile = (root: string) =>
  parseCheckpoint(readFileSync(path.join(root, '.claude-checkpoint'), 'utf8')).recentCommands.map(
    (entry) => entry.command,
  );

/** One raw request to the relay, as any local process could send it. */
export function askRelay(socket: string, request: unknown): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const connection = net.createConnection(socket, () =>
      connection.end(typeof request === 'string' ? request : JSON.stringify(request)),
    );
    connection.on('data', (chunk: Buffer) => chunks.push(chunk));
    connection.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
    connection.on('error', reject);
  });
}

/** The hosts running for `root`, found by their command line (in /proc where there is one: `ps` may not be installed). */
export function hostPids(root: string): number[] {
  if (!existsSync('/proc/self/cmdline')) {
    return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes(`--hook-host ${root}`))
      .map((line) => Number.parseInt(line.trim(), 10));
  }
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // ended meanwhile
    }
    const at = args.indexOf('--hook-host');
    if (at >= 0 && args[at + 1] === root) pids.push(Number(name));
  }
  return pids;
}

/**
 * The built server, started in `root` as an agent starts it; resolves once its relay listens. `log()` is
 * what it has written to stderr so far (the MCP client's log of it).
 */
export async function startRelayServer(root: string, env: Record<string, string>) {
  const client = new Client({ name: 'relay-test', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.resolve('dist/index.js')],
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  await client.connect(transport);
  onTestFinished(() => client.close());
  // The relay starts right after the MCP connection: a tool call round trip is time enough.
  await client.callTool({ name: 'load_session_checkpoint', arguments: {} });
  return { client, pid: transport.pid as number, log: () => stderr };
}

/** The plugin's Bash hook, as Claude Code runs it when `command` has ended. */
export function bashHook(root: string, env: Record<string, string>, command: string): Promise<CliResult> {
  return runNodeScript(SHIPPED_HOOK_ENTRY, ['PostToolUse'], {
    cwd: root,
    env,
    input: bashInput(root, command),
  });
}

/** The plugin's Bash hook run once for each command, all at the same time, as a burst of commands ending. */
export function bashHooksAtOnce(
  root: string,
  env: Record<string, string>,
  commands: readonly string[],
): Promise<CliResult[]> {
  return Promise.all(commands.map((command) => bashHook(root, env, command)));
}

/** A folder to put first on PATH: its `git` is the real one, except that `subcommand` fails. */
export function gitFailingAt(subcommand: string): string {
  const bin = tempDir('fake-git-');
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(
    path.join(bin, 'git'),
    `#!/bin/sh\nfor arg in "$@"; do [ "$arg" = ${subcommand} ] && { echo "fatal: simulated" >&2; exit 128; }; done\nexec "${realGit}" "$@"\n`,
    { mode: 0o755 },
  );
  return bin;
}

/** The Bash hook, run by a hook.cjs with no bundle of its own: it records `command` only through a relay. */
export function bashThroughRelay(
  root: string,
  env: Record<string, string>,
  command: string,
): Promise<CliResult> {
  return runNodeScript(relayOnlyHook(), ['PostToolUse'], { cwd: root, env, input: bashInput(root, command) });
}

/** A well-formed relay request for the Bash hook from another version of the package. */
export function otherVersionRequest(
  root: string,
  env: Record<string, string>,
  command: string,
): RelayRequest {
  return {
    protocol: RELAY_PROTOCOL,
    version: `${PACKAGE_VERSION}-other`,
    argv: ['PostToolUse'],
    stdin: bashInput(root, command),
    env,
    cwd: root,
    cliPath: '',
  };
}

/** The prompt hook, run by a hook.cjs with no bundle of its own: it snapshots only through a relay. */
export function promptThroughRelay(
  root: string,
  env: Record<string, string>,
  prompt: string,
): Promise<CliResult> {
  return runNodeScript(relayOnlyHook(), ['UserPromptSubmit'], {
    cwd: root,
    env,
    input: JSON.stringify({ cwd: root, prompt }),
  });
}

/** Where a server is held, for a test to kill it there: the three steps of writing a Bash hook's record. */
export type JournalHoldPoint = 'before-write' | 'before-rename' | 'after-rename';

/**
 * A preload (`--require`) for a server: the first time it writes a record into the command journal, at
 * `point`, it writes `marker` (its pid) and stops for good, so that a test kills it there (SIGKILL), not
 * at a moment chosen by a clock. `reached()` settles once the server is held.
 */
export function journalHold(point: JournalHoldPoint): { preload: string; reached: () => Promise<void> } {
  const dir = tempDir('journal-hold-');
  const preload = path.join(dir, 'hold.cjs');
  const marker = path.join(dir, 'held');
  writeFileSync(
    preload,
    `const fs = require('node:fs');
const point = ${JSON.stringify(point)};
let held = false;
const isJournalTemp = (file) => typeof file === 'string' && /\\.claude-checkpoint\\.journal[\\\\/]tmp-[^\\\\/]*$/.test(file);
function hold() {
  held = true;
  fs.writeFileSync(${JSON.stringify(marker)}, String(process.pid));
  for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}
const { openSync, renameSync } = fs;
fs.openSync = function (file, ...rest) {
  if (!held && point === 'before-write' && isJournalTemp(file)) hold();
  return openSync.call(this, file, ...rest);
};
fs.renameSync = function (from, to) {
  if (!held && point === 'before-rename' && isJournalTemp(from)) hold();
  const result = renameSync.call(this, from, to);
  if (!held && point === 'after-rename' && isJournalTemp(from)) hold();
  return result;
};
`,
  );
  return {
    preload,
    reached: async () => {
      while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

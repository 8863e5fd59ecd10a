// The Stop hook on large Claude Code transcripts: time and peak memory of the hook's own process, on a
// 20 MB and a 200 MB session file shaped like the recorded ones (test/fixtures/transcripts/): turns of a
// prompt, a Read with a large result, a Bash call, an Edit, TaskUpdate calls, API request records and a
// closing text, with the tasks created by TaskCreate at the start, so that a first read must go through
// the whole file. "First read": nothing remembered (the worst case: a long session met for the first
// time); "next turn": one turn appended since the last read, as at the end of every turn.
import { execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copilotStartLines, copilotTurnLines } from './copilot-events.mjs';

const BIG = 'x'.repeat(60_000);
const TASKS = ['Task 1', 'Task 2', 'Task 3', 'Task 4', 'Task 5'];

function turnLines(turn, taskTool) {
  const id = (name) => `toolu_${name}_${turn}`;
  const assistant = (content) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      message: { role: 'assistant', content },
      type: 'assistant',
      uuid: `a-${turn}`,
    });
  const user = (content, toolUseResult) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content },
      toolUseResult,
      uuid: `u-${turn}`,
    });
  const result = (name, content, extra = {}) => [
    { type: 'tool_result', tool_use_id: id(name), content, ...extra },
  ];
  return [
    user(`Turn ${turn}: go on with the next step`),
    taskTool === 'todo'
      ? assistant([
          {
            type: 'tool_use',
            id: id('todo'),
            name: 'TodoWrite',
            input: {
              todos: TASKS.map((content, index) => ({
                content,
                status: index === turn % 5 ? 'in_progress' : 'pending',
                activeForm: content,
              })),
            },
          },
        ])
      : assistant([
          {
            type: 'tool_use',
            id: id('upd'),
            name: 'TaskUpdate',
            input: { taskId: String((turn % 5) + 1), status: 'in_progress' },
          },
        ]),
    taskTool === 'todo'
      ? user(result('todo', 'Todos have been modified successfully.'), { oldTodos: [], newTodos: [] })
      : user(result('upd', `Updated task #${(turn % 5) + 1} status`), { success: true }),
    assistant([
      {
        type: 'tool_use',
        id: id('read'),
        name: 'Read',
        input: { file_path: `/project/src/file-${turn}.ts` },
      },
    ]),
    user(result('read', BIG), {
      type: 'text',
      file: { filePath: `/project/src/file-${turn}.ts`, content: BIG },
    }),
    assistant([
      {
        type: 'tool_use',
        id: id('bash'),
        name: 'Bash',
        input: { command: `npm test -- file-${turn}`, description: 'Run the tests' },
      },
    ]),
    user(result('bash', 'ok', { is_error: false }), { stdout: 'ok', stderr: '', interrupted: false }),
    assistant([
      {
        type: 'tool_use',
        id: id('edit'),
        name: 'Edit',
        input: { file_path: `/project/src/file-${turn}.ts`, old_string: 'a', new_string: 'b' },
      },
    ]),
    user(result('edit', `The file /project/src/file-${turn}.ts has been updated successfully.`)),
    JSON.stringify({
      type: 'api-request',
      sessionId: 's',
      params: { messages: [{ role: 'user', content: 'x'.repeat(4000) }] },
    }),
    assistant([{ type: 'text', text: `Turn ${turn} done; the tests pass.` }]),
  ].join('\n');
}

function startLines(taskTool) {
  const lines = [
    JSON.stringify({ type: 'user', message: { role: 'user', content: 'Refactor the session store' } }),
  ];
  for (let task = 1; task <= 5 && taskTool === 'tasks'; task++) {
    lines.push(
      JSON.stringify({
        type: 'assistant',
        message: {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: `toolu_create_${task}`,
              name: 'TaskCreate',
              input: { subject: `Task ${task}`, description: 'd', activeForm: 'Doing' },
            },
          ],
        },
      }),
      JSON.stringify({
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: `toolu_create_${task}`,
              content: `Task #${task} created successfully: Task ${task}`,
            },
          ],
        },
        toolUseResult: { task: { id: String(task), subject: `Task ${task}` } },
      }),
    );
  }
  return lines.join('\n');
}

/** One turn of a transcript, in the agent's format (Copilot CLI's session events, else Claude Code's). */
const nextTurn = (turn, taskTool) =>
  taskTool === 'copilot' ? copilotTurnLines(turn) : turnLines(turn, taskTool);

/** A transcript of about `megabytes` MB, made once and kept in the bench cache. */
function transcriptOf(dir, megabytes, taskTool) {
  const file = path.join(dir, `${taskTool === 'copilot' ? '' : 'claude-'}${taskTool}-${megabytes}mb.jsonl`);
  if (existsSync(file) && statSync(file).size >= megabytes * 1e6) return file;
  writeFileSync(file, `${taskTool === 'copilot' ? copilotStartLines() : startLines(taskTool)}\n`);
  let turn = 0;
  while (statSync(file).size < megabytes * 1e6) {
    const batch = [];
    for (let i = 0; i < 50; i++) batch.push(nextTurn(turn++, taskTool));
    appendFileSync(file, `${batch.join('\n')}\n`);
  }
  return file;
}

/** Runs the hook in its own process (no server, no host) and returns its time and peak RSS. */
function runStop(hookEntry, preload, project, env, transcript, rssFile, agent = 'claude') {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, ['--require', preload, hookEntry, 'Stop', '--agent', agent], {
      cwd: project,
      env: { ...env, BENCH_RSS_FILE: rssFile },
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', () => {
      const ms = performance.now() - start;
      if (stderr) return reject(new Error(`the Stop hook said: ${stderr}`));
      const rssMB = Number(readFileSync(rssFile, 'utf8')) / 1024;
      if (process.env.BENCH_DEBUG)
        process.stderr.write(`    sample: ${ms.toFixed(0)} ms, ${rssMB.toFixed(0)} MB\n`);
      resolve({ ms, rssMB });
    });
    child.stdin.end(
      JSON.stringify({ session_id: 's', transcript_path: transcript, cwd: project, hook_event_name: 'Stop' }),
    );
  });
}

/** A node process that does nothing: what any hook costs before it does anything. */
function runFloor(preload, rssFile) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, ['--require', preload, '-e', '0'], {
      env: { ...process.env, BENCH_RSS_FILE: rssFile },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('close', () =>
      resolve({ ms: performance.now() - start, rssMB: Number(readFileSync(rssFile, 'utf8')) / 1024 }),
    );
  });
}

function summarize(name, samples, floor) {
  const times = samples.map((sample) => sample.ms);
  return {
    name,
    ms: median(times),
    floorMs: median(floor.map((sample) => sample.ms)),
    peakRssMB: Math.max(...samples.map((sample) => sample.rssMB)),
    floorRssMB: Math.max(...floor.map((sample) => sample.rssMB)),
    spreadMs: [Math.min(...times), Math.max(...times)],
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

export async function benchTranscripts({ cacheDir, repeats, hookEntry, makeProject, saveCheckpoint, log }) {
  const dir = path.join(cacheDir, 'transcripts');
  mkdirSync(dir, { recursive: true });
  const preload = path.join(dir, 'rss-at-exit.cjs');
  writeFileSync(
    preload,
    // VmHWM: the process's own peak. getrusage's maxRSS also counts the parent's memory that a fork
    // copied before the exec, so a big bench process would show in every child.
    `process.on('exit', () => {
  const fs = require('node:fs');
  let kb = process.resourceUsage().maxRSS;
  try { kb = Number(/VmHWM:\\s*(\\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1]); } catch {}
  fs.writeFileSync(process.env.BENCH_RSS_FILE, String(kb));
});\n`,
  );
  const rows = [];
  const cases = [
    [20, 'todo'],
    [200, 'todo'],
    // TaskCreate / TaskUpdate build the list up: a first read goes through the whole file.
    [200, 'tasks'],
    // Copilot CLI's todo list is built up by `sql` statements: a first read goes through the whole file.
    [20, 'copilot'],
    [200, 'copilot'],
  ];
  for (const [megabytes, taskTool] of cases) {
    const source = transcriptOf(dir, megabytes, taskTool);
    // A copy, appended to by the "next turn" rounds.
    const transcript = path.join(dir, `session-${taskTool}-${megabytes}mb.jsonl`);
    copyFileSync(source, transcript);
    const project = makeProject(`transcript-${taskTool}-${megabytes}`);
    const store = path.join(dir, `store-${taskTool}-${megabytes}`);
    rmSync(store, { recursive: true, force: true });
    const env = {
      ...process.env,
      CHECKPOINT_STORE_DIR: store,
      CHECKPOINT_HOOK_RELAY: '0',
      CHECKPOINT_HOOK_CODE_CACHE: '0',
    };
    const rssFile = path.join(dir, 'rss');
    const samples = { first: [], next: [], floor: [] };
    for (let round = 0; round < repeats; round++) {
      rmSync(path.join(store, 'projects'), { recursive: true, force: true, maxRetries: 3 });
      await saveCheckpoint(project, env);
      samples.floor.push(await runFloor(preload, rssFile));
      const agent = taskTool === 'copilot' ? 'copilot' : 'claude';
      samples.first.push(await runStop(hookEntry, preload, project, env, transcript, rssFile, agent));
      appendFileSync(transcript, `${nextTurn(1_000_000 + round, taskTool)}\n`);
      samples.next.push(await runStop(hookEntry, preload, project, env, transcript, rssFile, agent));
    }
    const tool =
      taskTool === 'todo'
        ? 'TodoWrite'
        : taskTool === 'copilot'
          ? 'Copilot CLI events, sql todos'
          : 'TaskCreate/TaskUpdate';
    const wanted = taskTool === 'tasks' ? ['first'] : ['first', 'next'];
    for (const which of wanted) {
      const name = `hook Stop, ${megabytes} MB transcript (${tool}), ${which === 'first' ? 'first read' : 'next turn'}`;
      const row = summarize(name, samples[which], samples.floor);
      row.bytes = statSync(transcript).size;
      log(
        `  ${name}: ${row.ms.toFixed(0)} ms (node -e 0: ${row.floorMs.toFixed(0)} ms), peak RSS ${row.peakRssMB.toFixed(0)} MB`,
      );
      rows.push(row);
    }
    rmSync(transcript, { force: true });
  }
  return rows;
}

/** A small git project with one commit, for the hook to act on. */
export function makeBenchProject(cacheDir, name) {
  const dir = path.join(cacheDir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const git = (...args) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], {
      cwd: dir,
      stdio: 'ignore',
    });
  git('init', '-q');
  writeFileSync(path.join(dir, 'a.ts'), 'a\n');
  git('add', 'a.ts');
  git('commit', '-q', '-m', 'init');
  return dir;
}

/** A checkpoint saved by the CLI, as after the first turn of a session. */
export function saveWithCli(cli) {
  return (project, env) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [cli, 'save', '--goal', 'Refactor the session store'], {
        cwd: project,
        env,
        stdio: 'ignore',
      });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`save exited ${code}`))));
    });
}

// `node scripts/bench/transcript.mjs [repeats]`: these rows alone (after `npm run build && npm run bundle`).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const cacheDir = process.env.BENCH_CACHE_DIR ?? path.join(project, '.cache', 'bench');
  const rows = await benchTranscripts({
    cacheDir,
    repeats: Number(process.argv[2] ?? 3),
    hookEntry: path.join(project, 'plugin', 'dist', 'hook.cjs'),
    makeProject: (name) => makeBenchProject(cacheDir, name),
    saveCheckpoint: saveWithCli(path.join(project, 'dist', 'cli.js')),
    log: (text) => process.stderr.write(`${text}\n`),
  });
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
}

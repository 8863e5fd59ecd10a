// The Stop hook on large transcripts: time and peak memory of the hook's own process, on 20 MB and
// 200 MB session files shaped like the recorded ones (test/fixtures/transcripts/). Claude Code: turns of a
// prompt, a Read with a large result, a Bash call, an Edit, TaskUpdate calls, API request records and a
// closing text, with the tasks created by TaskCreate at the start, so that a first read must go through
// the whole file. Copilot CLI: its session events (scripts/bench/copilot-events.mjs). Codex (rollout file, its
// Stop hook) and Gemini CLI (chat file, its AfterAgent hook):
// turns of a prompt, a command with a large output, a file edit, the whole task list (update_plan,
// write_todos) and a closing text. "First read": nothing remembered (the worst case: a long session met
// for the first time); "next turn": one turn appended since the last read, as at the end of every turn.
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
import { usePlainNode } from './plain-node.mjs';

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

const PLAN = (turn) =>
  TASKS.map((step, index) => ({
    step,
    status: index < turn % 5 ? 'completed' : index === turn % 5 ? 'in_progress' : 'pending',
  }));

/** One turn of a Codex rollout file, as Codex 0.169.0 writes it (see codex-rollout.jsonl). */
function codexTurnLines(turn) {
  const line = (type, payload) => JSON.stringify({ timestamp: '2026-12-02T05:00:00.000Z', type, payload });
  const call = (name) => `call_${name}_${turn}`;
  return [
    line('event_msg', { type: 'task_started', turn_id: `t${turn}` }),
    line('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: `Turn ${turn}: go on with the next step` }],
    }),
    line('event_msg', {
      type: 'item_completed',
      item: { type: 'UserMessage', id: `u${turn}`, content: [{ type: 'text', text: `Turn ${turn}` }] },
    }),
    line('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: `cat src/file-${turn}.ts` }),
      call_id: call('cat'),
    }),
    line('event_msg', {
      type: 'item_completed',
      item: {
        type: 'CommandExecution',
        id: call('cat'),
        command: ['/bin/bash', '-lc', `cat src/file-${turn}.ts`],
        status: 'completed',
        aggregated_output: BIG,
        exit_code: 0,
      },
    }),
    line('response_item', {
      type: 'function_call_output',
      call_id: call('cat'),
      output: `Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n${BIG}`,
    }),
    line('response_item', {
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: `*** Begin Patch\n*** Update File: src/file-${turn}.ts\n@@\n-a\n+b\n*** End Patch\n`,
      call_id: call('patch'),
    }),
    line('event_msg', {
      type: 'item_completed',
      item: {
        type: 'FileChange',
        id: call('patch'),
        changes: { [`/project/src/file-${turn}.ts`]: { type: 'update', unified_diff: '-a\n+b\n' } },
        status: 'completed',
      },
    }),
    line('response_item', {
      type: 'custom_tool_call_output',
      call_id: call('patch'),
      output: `Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/file-${turn}.ts\n`,
    }),
    line('response_item', {
      type: 'function_call',
      name: 'update_plan',
      arguments: JSON.stringify({ plan: PLAN(turn) }),
      call_id: call('plan'),
    }),
    line('response_item', { type: 'function_call_output', call_id: call('plan'), output: 'Plan updated' }),
    line('event_msg', { type: 'token_count', info: { note: 'x'.repeat(4000) } }),
    line('response_item', {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: `Turn ${turn} done; the tests pass.` }],
    }),
    line('event_msg', { type: 'task_complete', last_agent_message: `Turn ${turn} done; the tests pass.` }),
  ].join('\n');
}

/** One turn of a Gemini CLI chat file, as Gemini CLI 0.61.0 writes it (see gemini-chat.jsonl). */
function geminiTurnLines(turn) {
  const at = '2026-12-02T05:00:00.000Z';
  const lines = [
    JSON.stringify({
      id: `u${turn}`,
      timestamp: at,
      type: 'user',
      content: [{ text: `Turn ${turn}: go on` }],
    }),
  ];
  const toolTurn = (name, args, output, step) => {
    const id = `m${turn}-${step}`;
    const callId = `${name}__call_${turn}_${step}`;
    const response = { functionResponse: { id: callId, name, response: { output } } };
    lines.push(
      JSON.stringify({
        id,
        timestamp: at,
        type: 'gemini',
        content: '',
        thoughts: [],
        model: 'gemini-2.5-flash',
      }),
      JSON.stringify({ $set: { lastUpdated: at } }),
      JSON.stringify({
        id,
        timestamp: at,
        type: 'gemini',
        content: '',
        thoughts: [],
        model: 'gemini-2.5-flash',
        toolCalls: [{ id: callId, name, args, result: [response], status: 'success', timestamp: at }],
      }),
      JSON.stringify({ id: `${id}-r`, timestamp: at, type: 'user', content: [response] }),
      JSON.stringify({ $set: { lastUpdated: at } }),
    );
  };
  toolTurn('read_file', { file_path: `src/file-${turn}.ts` }, BIG, 1);
  toolTurn(
    'run_shell_command',
    { command: `npm test -- file-${turn}` },
    'Output: ok\nProcess Group PGID: 1',
    2,
  );
  toolTurn(
    'replace',
    { file_path: `src/file-${turn}.ts`, old_string: 'a', new_string: 'b' },
    'Successfully modified file.',
    3,
  );
  toolTurn(
    'write_todos',
    { todos: PLAN(turn).map(({ step, status }) => ({ description: step, status })) },
    'Successfully updated the todo list.',
    4,
  );
  lines.push(
    JSON.stringify({
      id: `m${turn}-5`,
      timestamp: at,
      type: 'gemini',
      content: `Turn ${turn} done; the tests pass.`,
      thoughts: [],
      tokens: { input: 100, output: 10, cached: 0, total: 110, note: 'x'.repeat(4000) },
      model: 'gemini-2.5-flash',
    }),
    JSON.stringify({ $set: { lastUpdated: at } }),
  );
  return lines.join('\n');
}

/** Each transcript format: its first lines, one turn, and the hook event (and agent) that reads it. */
const FORMATS = {
  copilot: {
    agent: 'copilot',
    event: 'Stop',
    // Copilot CLI's todo list is built up by `sql` statements: a first read goes through the whole file.
    label: 'Copilot CLI events, sql todos',
    start: copilotStartLines,
    turn: copilotTurnLines,
  },
  todo: {
    agent: 'claude',
    event: 'Stop',
    label: 'Claude Code, TodoWrite',
    start: () => startLines('todo'),
    turn: (turn) => turnLines(turn, 'todo'),
  },
  tasks: {
    agent: 'claude',
    event: 'Stop',
    label: 'Claude Code, TaskCreate/TaskUpdate',
    start: () => startLines('tasks'),
    turn: (turn) => turnLines(turn, 'tasks'),
  },
  codex: {
    agent: 'codex',
    event: 'Stop',
    label: 'Codex rollout, update_plan',
    start: () =>
      [
        JSON.stringify({
          timestamp: '2026-12-02T05:00:00.000Z',
          type: 'session_meta',
          payload: { id: 's', cli_version: '0.169.0' },
        }),
        JSON.stringify({
          timestamp: '2026-12-02T05:00:00.000Z',
          type: 'event_msg',
          payload: { type: 'user_message', message: 'Refactor the session store' },
        }),
      ].join('\n'),
    turn: codexTurnLines,
  },
  gemini: {
    agent: 'gemini',
    event: 'AfterAgent',
    label: 'Gemini CLI chat, write_todos',
    start: () =>
      [
        JSON.stringify({
          sessionId: 's',
          projectHash: 'h',
          startTime: '2026-12-02T05:00:00.000Z',
          lastUpdated: '2026-12-02T05:00:00.000Z',
          kind: 'main',
        }),
        JSON.stringify({
          id: 'u-first',
          timestamp: '2026-12-02T05:00:00.000Z',
          type: 'user',
          content: [{ text: 'Refactor the session store' }],
        }),
      ].join('\n'),
    turn: geminiTurnLines,
  },
};

/** A transcript of about `megabytes` MB, made once and kept in the bench cache. */
function transcriptOf(dir, megabytes, format) {
  const prefix = FORMATS[format].agent === 'claude' ? `claude-${format}` : format;
  const file = path.join(dir, `${prefix}-${megabytes}mb.jsonl`);
  if (existsSync(file) && statSync(file).size >= megabytes * 1e6) return file;
  writeFileSync(file, `${FORMATS[format].start()}\n`);
  let turn = 0;
  while (statSync(file).size < megabytes * 1e6) {
    const batch = [];
    for (let i = 0; i < 50; i++) batch.push(FORMATS[format].turn(turn++));
    appendFileSync(file, `${batch.join('\n')}\n`);
  }
  return file;
}

/** Runs the hook in its own process (no server, no host) and returns its time and peak RSS. */
function runStop(hookEntry, preload, project, env, transcript, rssFile, format = 'todo') {
  const { agent, event } = FORMATS[format];
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, ['--require', preload, hookEntry, event, '--agent', agent], {
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
      JSON.stringify({ session_id: 's', transcript_path: transcript, cwd: project, hook_event_name: event }),
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

export async function benchTranscripts({
  cacheDir,
  repeats,
  hookEntry,
  makeProject,
  saveCheckpoint,
  log,
  quick = false,
}) {
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
    [20, 'codex'],
    [200, 'codex'],
    [20, 'gemini'],
    [200, 'gemini'],
    [20, 'copilot'],
    [200, 'copilot'],
  ];
  // CI's smoke run (--quick): every format once, at 20 MB, so that the code runs; the figures come from full runs.
  if (quick)
    cases.splice(0, cases.length, ...['todo', 'tasks', 'codex', 'gemini', 'copilot'].map((f) => [20, f]));
  // BENCH_TRANSCRIPT_FORMATS=codex,gemini: only those formats' rows (todo, tasks, codex, gemini, copilot).
  const only = process.env.BENCH_TRANSCRIPT_FORMATS?.split(',').map((name) => name.trim());
  for (const [megabytes, taskTool] of cases) {
    if (only && !only.includes(taskTool)) continue;
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
      samples.first.push(await runStop(hookEntry, preload, project, env, transcript, rssFile, taskTool));
      appendFileSync(transcript, `${FORMATS[taskTool].turn(1_000_000 + round)}\n`);
      samples.next.push(await runStop(hookEntry, preload, project, env, transcript, rssFile, taskTool));
    }
    const { event, label } = FORMATS[taskTool];
    const wanted = taskTool === 'tasks' ? ['first'] : ['first', 'next'];
    for (const which of wanted) {
      // The Claude Code rows keep their earlier names, so that results stay comparable across runs.
      const tool = taskTool === 'todo' ? 'TodoWrite' : taskTool === 'tasks' ? 'TaskCreate/TaskUpdate' : label;
      const name = `hook ${event}, ${megabytes} MB transcript (${tool}), ${which === 'first' ? 'first read' : 'next turn'}`;
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
  usePlainNode();
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

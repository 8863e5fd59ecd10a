// Copilot CLI session events (~/.copilot/session-state/<id>/events.jsonl) shaped like the recorded ones
// (test/fixtures/transcripts/copilot-session.jsonl), for the transcript rows of the bench: a session
// start with Copilot CLI's long system message, the first prompt and the todo list inserted with the
// `sql` tool, then turns of a prompt, a file view with a large result, a shell command, an edit, a todo
// update and a closing text, with the hook events Copilot CLI writes around them.

const BIG = 'x'.repeat(60_000);
let counter = 0;
const event = (type, data) =>
  JSON.stringify({
    type,
    data,
    id: `00000000-0000-4000-8000-${String(++counter).padStart(12, '0')}`,
    timestamp: '2026-01-01T00:00:00.000Z',
    parentId: null,
  });

const toolCall = (turn, name, args, complete) => {
  const toolCallId = `call_${name}_${turn}`;
  return [
    event('assistant.message', {
      messageId: `m-${turn}-${name}`,
      content: '',
      toolRequests: [{ toolCallId, name, arguments: args, type: 'function' }],
      turnId: String(turn),
    }),
    event('hook.start', { hookType: 'preToolUse', input: { toolCalls: [{ id: toolCallId, name, args }] } }),
    event('tool.execution_start', { toolCallId, toolName: name, arguments: args, turnId: String(turn) }),
    event('tool.execution_complete', { toolCallId, success: true, turnId: String(turn), ...complete }),
    event('hook.start', { hookType: 'postToolUse', input: { toolName: name, toolArgs: args } }),
  ];
};

export function copilotStartLines() {
  return [
    event('session.start', {
      sessionId: 's',
      version: 1,
      producer: 'copilot-agent',
      copilotVersion: '1.0.102',
    }),
    event('user.message', {
      content: 'Refactor the session store',
      transformedContent: 'Refactor the session store',
    }),
    event('system.message', { role: 'system', content: 's'.repeat(22_000) }),
    ...toolCall(
      'start',
      'sql',
      {
        description: 'Insert todos',
        query: `INSERT INTO todos (id, title, description) VALUES ${[1, 2, 3, 4, 5].map((n) => `('t${n}', 'Task ${n}', 'd')`).join(', ')};`,
      },
      { result: { content: '5 row(s) inserted.' } },
    ),
  ].join('\n');
}

export function copilotTurnLines(turn) {
  const file = `/project/src/file-${turn}.ts`;
  return [
    event('user.message', { content: `Turn ${turn}: go on with the next step`, turnId: '0' }),
    event('assistant.turn_start', { turnId: String(turn) }),
    ...toolCall(turn, 'view', { path: file }, { result: { content: BIG, detailedContent: BIG } }),
    ...toolCall(
      turn,
      'bash',
      { command: `npm test -- file-${turn}`, description: 'Run the tests' },
      { shellExecution: { exitCode: 0 }, result: { content: 'ok\n<shellId: 0 completed with exit code 0>' } },
    ),
    ...toolCall(
      turn,
      'edit',
      { path: file, old_str: 'a', new_str: 'b' },
      {
        fileEdits: [{ path: file, kind: 'edit' }],
        result: { content: `File ${file} updated with changes.` },
      },
    ),
    ...toolCall(
      turn,
      'sql',
      {
        description: 'Update todo',
        query: `UPDATE todos SET status = 'in_progress' WHERE id = 't${(turn % 5) + 1}'`,
      },
      { result: { content: '1 row(s) updated.' } },
    ),
    event('session.usage_record', { usage: { model: 'm', inputTokens: 100, outputTokens: 10 } }),
    event('assistant.message', {
      messageId: `m-${turn}`,
      content: `Turn ${turn} done; the tests pass.`,
      toolRequests: [],
    }),
    event('assistant.turn_end', { turnId: String(turn) }),
  ].join('\n');
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted stand-in for a model API, on a loopback port, so a real agent CLI can run real sessions
 * offline. It logs every request (what the model would have received) and answers each with the next
 * step of a plan. The wire format is the Anthropic Messages API, streamed as server-sent events; the
 * plan logic works on a neutral view of the conversation so other wire formats can reuse it.
 */

/** One thing the model does in a turn: call a tool, or answer in text (which ends the turn). */
export type PlannedStep = { tool: string; input: Record<string, unknown> } | { text: string };

/**
 * For each user prompt, the steps the model takes; unknown prompts get a short text answer. `callable`
 * lists the tools the agent offers now (to find an MCP tool under the agent's own naming).
 */
export type Plan = (prompt: string, callable: ReadonlySet<string>) => readonly PlannedStep[];

export interface LoggedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown> | null;
  /** The raw body text: what to search for what the model received. */
  raw: string;
}

export interface FakeModel {
  /** The base URL to give the agent (ANTHROPIC_BASE_URL). */
  url: string;
  requests: LoggedRequest[];
  close: () => Promise<void>;
}

/** The neutral view of a conversation the plan logic needs. */
export interface ConversationView {
  /** The newest user prompt typed by a person (not a tool result, not a reminder). */
  prompt: string;
  /** Tools called since that prompt, in order, with whether each has a result yet. */
  calls: Array<{ name: string; answered: boolean }>;
  /** Tool names the model can call now (deferred ones only after a ToolSearch loaded them). */
  callable: ReadonlySet<string>;
}

const TOOL_SEARCH = 'ToolSearch';

/**
 * The next step of the plan: planned tool calls in order, each preceded by a ToolSearch when the agent
 * defers that tool (as Claude Code does with MCP tools), then the plan's text, or "Done." when it has none.
 */
export function nextStep(view: ConversationView, plan: Plan): PlannedStep {
  const steps = plan(view.prompt, view.callable);
  const toolSteps = steps.filter((step): step is Extract<PlannedStep, { tool: string }> => 'tool' in step);
  const done = view.calls.filter((call) => call.name !== TOOL_SEARCH).length;
  const next = toolSteps[done];
  // A request that offers no tools (a title or summary the agent asks for on the side) gets text.
  if (next && view.callable.size > 0) {
    const searched = view.calls.at(-1)?.name === TOOL_SEARCH;
    if (!view.callable.has(next.tool) && !searched && view.callable.has(TOOL_SEARCH))
      return { tool: TOOL_SEARCH, input: { query: `select:${next.tool}`, max_results: 1 } };
    return next;
  }
  const text = steps.find((step): step is { text: string } => 'text' in step);
  return text ?? { text: 'Done.' };
}

type Block = { type: string; [key: string]: unknown };
type Message = { role: string; content: string | Block[] };

/** Reads an Anthropic Messages request into the neutral view. */
export function anthropicView(body: Record<string, unknown>): ConversationView {
  const messages = (body.messages as Message[] | undefined) ?? [];
  const blocks = (message: Message): Block[] =>
    typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  let start = 0;
  let prompt = '';
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    const content = blocks(message);
    if (content.some((block) => block.type === 'tool_result')) return;
    // The person's words are the last plain text block: reminders, command echoes and a compaction's
    // summary come before it, wrapped in tags or as blocks of their own.
    const typed = content
      .filter((block) => block.type === 'text' && !String(block.text).trimStart().startsWith('<'))
      .map((block) => String(block.text));
    const last = typed.at(-1);
    if (last === undefined) return;
    start = index;
    prompt = last;
  });
  const answered = new Set<string>();
  const calls: ConversationView['calls'] = [];
  for (const message of messages.slice(start)) {
    for (const block of blocks(message)) {
      if (block.type === 'tool_result') answered.add(String(block.tool_use_id));
      if (block.type === 'tool_use') calls.push({ name: String(block.name), answered: false });
    }
  }
  let index = 0;
  for (const message of messages.slice(start))
    for (const block of blocks(message))
      if (block.type === 'tool_use') {
        const call = calls[index++];
        if (call) call.answered = answered.has(String(block.id));
      }
  // Tools a ToolSearch loaded arrive as definitions in `tools` (or as tool references in its result).
  const tools = (body.tools as Array<{ name: string; defer_loading?: boolean }> | undefined) ?? [];
  const callable = new Set(tools.filter((tool) => !tool.defer_loading).map((tool) => tool.name));
  for (const message of messages)
    for (const block of blocks(message))
      if (block.type === 'tool_result' && Array.isArray(block.content))
        for (const part of block.content as Block[])
          if (part.type === 'tool_reference') callable.add(String(part.tool_name));
  return { prompt, calls, callable };
}

/**
 * What a person typed in a text the agent sent: agents put context before the prompt in tags of their
 * own (<hook_context>, <current_datetime>), which are taken off; `undefined` when nothing is left.
 */
export function typedText(text: string | undefined): string | undefined {
  if (typeof text !== 'string') return undefined;
  const rest = text.replace(/^(?:\s*<([\w-]+)>[\s\S]*?<\/\1>)+\s*/, '');
  return rest === '' || rest.trimStart().startsWith('<') ? undefined : rest;
}

/** Reads a Gemini `generateContent` request into the neutral view. */
export function geminiView(body: Record<string, unknown>): ConversationView {
  type Part = { text?: string; functionCall?: { name: string }; functionResponse?: { name: string } };
  const contents = (body.contents as Array<{ role: string; parts: Part[] }> | undefined) ?? [];
  let start = 0;
  let prompt = '';
  contents.forEach((content, index) => {
    if (content.role !== 'user' || content.parts.some((part) => part.functionResponse)) return;
    // Gemini CLI puts SessionStart context before the prompt in the same part, in <hook_context> tags.
    const typed = content.parts
      .map((part) => typedText(part.text))
      .filter((text): text is string => text !== undefined);
    const last = typed.at(-1);
    if (last === undefined) return;
    start = index;
    prompt = last;
  });
  const calls: ConversationView['calls'] = [];
  for (const content of contents.slice(start))
    for (const part of content.parts) {
      if (part.functionCall) calls.push({ name: part.functionCall.name, answered: false });
      if (part.functionResponse) {
        const open = calls.find((call) => !call.answered && call.name === part.functionResponse?.name);
        if (open) open.answered = true;
      }
    }
  const tools = (body.tools as Array<{ functionDeclarations?: Array<{ name: string }> }> | undefined) ?? [];
  const callable = new Set(tools.flatMap((tool) => (tool.functionDeclarations ?? []).map((fn) => fn.name)));
  return { prompt, calls, callable };
}

/** Reads an OpenAI Responses API request (Codex) into the neutral view. */
export function responsesView(body: Record<string, unknown>): ConversationView {
  type Item = {
    type?: string;
    role?: string;
    name?: string;
    call_id?: string;
    content?: Array<{ type: string; text?: string }>;
  };
  const input = (body.input as Item[] | undefined) ?? [];
  let start = 0;
  let prompt = '';
  input.forEach((item, index) => {
    // OpenCode leaves out `type` on messages.
    if ((item.type ?? 'message') !== 'message' || item.role !== 'user') return;
    // Copilot CLI puts <current_datetime> before the prompt in the same part, and a pre-tool hook's
    // additionalContext after the tool's result as a user message of its own.
    const typed = (item.content ?? [])
      .filter((part) => part.type === 'input_text')
      .map((part) => typedText(part.text))
      .filter((text): text is string => text !== undefined && !text.startsWith('Additional context from '));
    const last = typed.at(-1);
    if (last === undefined) return;
    start = index;
    prompt = last;
  });
  // Codex offers some tools (apply_patch) as freeform `custom` tools, called and answered as custom items.
  const answered = new Set(
    input
      .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
      .map((item) => item.call_id),
  );
  const calls = input
    .slice(start)
    .filter((item) => item.type === 'function_call' || item.type === 'custom_tool_call')
    .map((item) => ({
      name: (item as { namespace?: string }).namespace
        ? `${(item as { namespace?: string }).namespace}::${item.name}`
        : String(item.name),
      answered: answered.has(item.call_id),
    }));
  // Codex groups an MCP server's tools in a namespace: those are offered, and called, as `namespace::tool`.
  const tools = (body.tools as Array<{ name?: string; tools?: Array<{ name?: string }> }> | undefined) ?? [];
  const callable = new Set(
    tools
      .flatMap((tool) => [tool.name, ...(tool.tools ?? []).map((inner) => `${tool.name}::${inner.name}`)])
      .filter((name): name is string => typeof name === 'string'),
  );
  return { prompt, calls, callable };
}

/** The wire formats the stand-in speaks, by the paths the agents call. */
export type WireFormat = 'anthropic' | 'gemini' | 'responses';

/**
 * Starts the stand-in on 127.0.0.1 with a free port. `latencyMs` delays each answer as a real model's
 * turn would (background hooks of the previous tool call are still starting when an instant answer
 * ends a print-mode session, and Claude Code cancels them).
 */
export async function startFakeModel(
  plan: Plan,
  options: {
    latencyMs?: number;
    format?: WireFormat;
    /**
     * Responses API: stream a text answer as the API does, in `response.output_text.delta` events too
     * (OpenCode builds its message from those; the other agents read the finished item).
     */
    textDeltas?: boolean;
  } = {},
): Promise<FakeModel> {
  const requests: LoggedRequest[] = [];
  let counter = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: Record<string, unknown> | null = null;
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
      } catch {
        body = null;
      }
      requests.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body,
        raw,
      });
      const url = request.url ?? '';
      if (options.format === 'responses') {
        counter += 1;
        const reply = () =>
          writeResponsesReply(response, url, body, plan, counter, options.textDeltas === true);
        if (options.latencyMs) setTimeout(reply, options.latencyMs);
        else reply();
        return;
      }
      if (options.format === 'gemini') {
        counter += 1;
        const reply = () => writeGeminiReply(response, url, body, plan, counter);
        if (options.latencyMs) setTimeout(reply, options.latencyMs);
        else reply();
        return;
      }
      if (!url.startsWith('/v1/messages') || url.startsWith('/v1/messages/count_tokens') || !body) {
        // Token counting and anything else: a harmless answer.
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ input_tokens: 100 }));
        return;
      }
      counter += 1;
      const step = nextStep(anthropicView(body), plan);
      const reply = () =>
        writeAnthropicReply(
          response,
          step,
          String(body.model ?? 'fake-model'),
          counter,
          body.stream === true,
        );
      if (options.latencyMs) setTimeout(reply, options.latencyMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function writeAnthropicReply(
  response: http.ServerResponse,
  step: PlannedStep,
  model: string,
  counter: number,
  stream: boolean,
): void {
  const block =
    'tool' in step
      ? { type: 'tool_use', id: `toolu_fake_${counter}`, name: step.tool, input: step.input }
      : { type: 'text', text: step.text };
  const stopReason = 'tool' in step ? 'tool_use' : 'end_turn';
  const usage = {
    input_tokens: 100,
    output_tokens: 10,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  const message = {
    id: `msg_fake_${counter}`,
    type: 'message',
    role: 'assistant',
    model,
    stop_sequence: null,
  };
  if (!stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...message, content: [block], stop_reason: stopReason, usage }));
    return;
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: string, data: Record<string, unknown>) =>
    response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  send('message_start', { message: { ...message, content: [], stop_reason: null, usage } });
  if (block.type === 'tool_use') {
    send('content_block_start', { index: 0, content_block: { ...block, input: {} } });
    send('content_block_delta', {
      index: 0,
      delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
    });
  } else {
    send('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
    send('content_block_delta', { index: 0, delta: { type: 'text_delta', text: block.text } });
  }
  send('content_block_stop', { index: 0 });
  send('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 10 },
  });
  send('message_stop', {});
  response.end();
}

function writeGeminiReply(
  response: http.ServerResponse,
  url: string,
  body: Record<string, unknown> | null,
  plan: Plan,
  counter: number,
): void {
  if (!/generatecontent/i.test(url) || !body) {
    // countTokens and the like.
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ totalTokens: 100 }));
    return;
  }
  const config = body.generationConfig as { responseMimeType?: string } | undefined;
  let part: Record<string, unknown>;
  if (config?.responseMimeType === 'application/json') {
    // Gemini CLI's model router asks for a JSON verdict before the turn itself.
    part = { text: JSON.stringify({ complexity_reasoning: 'a scripted turn', complexity_score: 10 }) };
  } else {
    const step = nextStep(geminiView(body), plan);
    part =
      'tool' in step
        ? { functionCall: { id: `call_fake_${counter}`, name: step.tool, args: step.input } }
        : { text: step.text };
  }
  const chunk = {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
  };
  if (url.includes('streamGenerateContent')) {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`data: ${JSON.stringify(chunk)}\n\n`);
  } else {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(chunk));
  }
}

function writeResponsesReply(
  response: http.ServerResponse,
  url: string,
  body: Record<string, unknown> | null,
  plan: Plan,
  counter: number,
  textDeltas: boolean,
): void {
  if (!url.includes('/responses') || !body) {
    response.writeHead(404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { message: `no such endpoint in the stand-in: ${url}` } }));
    return;
  }
  const step = nextStep(responsesView(body), plan);
  const tools = (body.tools as Array<{ type?: string; name?: string }> | undefined) ?? [];
  const isFreeform = (name: string) => tools.some((tool) => tool.type === 'custom' && tool.name === name);
  const item =
    'tool' in step && isFreeform(step.tool)
      ? {
          type: 'custom_tool_call',
          id: `ctc_fake_${counter}`,
          call_id: `call_fake_${counter}`,
          name: step.tool,
          // A freeform tool takes text: the plan gives it as `input.input`.
          input: String(step.input.input ?? ''),
          status: 'completed',
        }
      : 'tool' in step
        ? {
            type: 'function_call',
            id: `fc_fake_${counter}`,
            call_id: `call_fake_${counter}`,
            ...(step.tool.includes('::')
              ? { namespace: step.tool.split('::')[0], name: step.tool.split('::')[1] }
              : { name: step.tool }),
            arguments: JSON.stringify(step.input),
            // The Responses API marks a finished call; OpenCode aborts a call without it.
            status: 'completed',
          }
        : {
            type: 'message',
            id: `msg_fake_${counter}`,
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: step.text, annotations: [] }],
          };
  const id = `resp_fake_${counter}`;
  const usage = {
    input_tokens: 100,
    output_tokens: 10,
    total_tokens: 110,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens_details: { reasoning_tokens: 0 },
  };
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const send = (type: string, data: Record<string, unknown>) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('response.created', { response: { id, status: 'in_progress', output: [] } });
  send('response.output_item.added', { output_index: 0, item });
  if (textDeltas && 'text' in step) {
    const part = { type: 'output_text', text: '', annotations: [] };
    const at = { item_id: item.id, output_index: 0, content_index: 0 };
    send('response.content_part.added', { ...at, part });
    send('response.output_text.delta', { ...at, delta: step.text });
    send('response.output_text.done', { ...at, text: step.text });
    send('response.content_part.done', { ...at, part: { ...part, text: step.text } });
  }
  send('response.output_item.done', { output_index: 0, item });
  send('response.completed', { response: { id, status: 'completed', output: [item], usage } });
  response.end();
}

/** Every string the model received in one request: system text, messages, tool results. */
export function received(request: LoggedRequest): string {
  const texts: string[] = [];
  const walk = (value: unknown): void => {
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(request.body?.system);
  walk(request.body?.messages);
  return texts.join('\n');
}

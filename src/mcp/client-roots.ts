import type { McpServer } from '@modelcontextprotocol/server';
import { ROOT_ENV } from '../app/root.js';
import { quotePath } from '../core/quote.js';
import { aroundToolCalls, type ToolCallAnswer } from './tool-call-wrap.js';

/** How long a client has to answer `roots/list`. */
const ROOTS_TIMEOUT_MS = 2000;
/** How long a tool call that came before the client's `notifications/initialized` waits for it. */
const INITIALIZED_WAIT_MS = 5000;

/**
 * The client's MCP roots, asked for once the client has sent `notifications/initialized` (the MCP
 * lifecycle: a server should send no request but ping before it). When a client that offers roots does
 * not answer in time, the tool falls back to the server's working directory and its result says so (a
 * trial found it said only on stderr, while the result said "Checkpoint saved to" that folder). Call it
 * after serialiseToolCalls: the warning belongs to the one call running.
 */
export function askClientRoots(server: McpServer, cwd: () => string): () => Promise<readonly string[]> {
  let markInitialized = () => {};
  const initialized = new Promise<void>((resolve) => {
    markInitialized = resolve;
  });
  // Waited for once: a client that never sends it is not made to wait again at every call (a review).
  let isWaitedOut = false;
  let isInitialized = false;
  const previous = server.server.oninitialized;
  server.server.oninitialized = () => {
    isInitialized = true;
    markInitialized();
    previous?.();
  };
  let unanswered: string | undefined;
  aroundToolCalls(server, async (answer) => {
    unanswered = undefined;
    const result = await answer();
    return unanswered === undefined ? result : withWarning(result, fallbackWarning(unanswered, cwd()));
  });
  return async () => {
    if (!server.server.getClientCapabilities()?.roots) return [];
    const notInitialized = `it sent no notifications/initialized within ${seconds(INITIALIZED_WAIT_MS)}`;
    const problem = await Promise.race([
      initialized.then(() => undefined),
      // Checked here, not raced: an `initialized` that came late, after the wait, wins (a review).
      isWaitedOut && !isInitialized
        ? Promise.resolve(notInitialized)
        : wait(INITIALIZED_WAIT_MS).then(() => {
            isWaitedOut = true;
            return notInitialized;
          }),
    ]);
    if (problem !== undefined) {
      unanswered = problem;
      return [];
    }
    try {
      const result = await server.server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS });
      return result.roots.map((root) => root.uri);
    } catch (error) {
      process.stderr.write(
        `claude-checkpoint: could not list the client's roots: ${(error as Error).message}\n`,
      );
      unanswered = `it did not answer roots/list within ${seconds(ROOTS_TIMEOUT_MS)}`;
      return [];
    }
  };
}

function fallbackWarning(problem: string, cwd: string): string {
  return `⚠ The MCP client offers roots, but ${problem}: the project root is the server's working directory, ${quotePath(cwd)}. To choose the project, pass projectRoot or set ${ROOT_ENV} in the server's environment.`;
}

/** `result` with `warning` after its text, and in its structured content's `text` (or `warnings`). */
function withWarning(result: ToolCallAnswer, warning: string): ToolCallAnswer {
  const [first, ...rest] = result.content ?? [];
  const content =
    first?.type === 'text'
      ? [{ ...first, text: `${first.text ?? ''}\n${warning}` }, ...rest]
      : [...(result.content ?? []), { type: 'text', text: warning }];
  const structured = result.structuredContent;
  if (!structured) return { ...result, content };
  const said =
    typeof structured.text === 'string'
      ? { ...structured, text: `${structured.text}\n${warning}` }
      : Array.isArray(structured.warnings)
        ? { ...structured, warnings: [...structured.warnings, warning] }
        : { ...structured, text: warning };
  return { ...result, content, structuredContent: said };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
const seconds = (ms: number) => `${ms / 1000} s`;

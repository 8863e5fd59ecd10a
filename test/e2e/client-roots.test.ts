import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRepo, tempDir } from '../helpers/fixtures.js';
import { connectStdio } from '../helpers/mcp.js';

// Rewind trial: the server asked the client for its roots before the client's notifications/initialized
// (the MCP lifecycle says a server should not), gave up after 2 s, and saved in the folder it was started
// in, its result saying "Checkpoint saved to <that folder>" with no warning (only stderr said so).
describe("the client's MCP roots over stdio", () => {
  it('are asked for only once the client is initialized: a call sent before waits for it', async () => {
    const project = createRepo({ committed: { 'a.ts': 'a\n' } });
    const startedIn = tempDir('server-cwd-');
    const { call, sendInitialized } = await connectStdio({
      cwd: startedIn,
      roots: [pathToFileURL(project).href],
      holdInitialized: true,
    });
    const saved = call('save_session_checkpoint', { goal: 'g' });
    // Longer than the server waits for an answer to roots/list.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await sendInitialized();
    const result = await saved;
    expect(result.structured?.path).toBe(path.join(project, '.claude-checkpoint'));
    expect(result.text).not.toContain('⚠');
    expect(existsSync(path.join(startedIn, '.claude-checkpoint'))).toBe(false);
  });

  it('that a client offers and does not give in time: the result says where it saved instead, and how to choose', async () => {
    const project = createRepo({ committed: { 'a.ts': 'a\n' } });
    const startedIn = createRepo({ committed: { 'b.ts': 'b\n' } });
    const { call } = await connectStdio({
      cwd: startedIn,
      roots: [pathToFileURL(project).href],
      answerRoots: false,
    });
    const result = await call('save_session_checkpoint', { goal: 'g' });
    const warning = `⚠ The MCP client offers roots, but it did not answer roots/list within 2 s: the project root is the server's working directory, ${startedIn}. To choose the project, pass projectRoot or set CHECKPOINT_PROJECT_ROOT in the server's environment.`;
    expect(result.text).toContain(`\n${warning}`);
    expect(result.structured?.text).toContain(`\n${warning}`);
    expect(result.structured?.path).toBe(path.join(startedIn, '.claude-checkpoint'));
    // The next call asks again, and says so again: the warning is the call's, not the connection's.
    const loaded = await call('load_session_checkpoint');
    expect(loaded.structured?.warnings).toContain(warning);
  });
});

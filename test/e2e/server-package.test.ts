import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { assertBuilt } from '../helpers/cli.js';
import { createRepo, tempDir, workerStateHome } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const { bin } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
};

async function connect(entry: string, cwd: string) {
  const client = new Client({ name: 'server-package', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [entry],
      cwd,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        XDG_STATE_HOME: workerStateHome(),
        CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-'),
      },
      stderr: 'pipe',
    }),
  );
  onTestFinished(() => client.close());
  return client;
}

const text = (result: { content: unknown }) => (result.content as Array<{ text: string }>)[0]?.text ?? '';

// Issue 26: the server's start is measured against `node` loading the MCP SDK alone. As ES modules, our
// files and the SDK's cost Node more to find and compile than that, so the package's server is one file
// (scripts/bundle.mjs --package), as the plugin's is.
describe('the MCP server the npm package names', () => {
  it('is one file: it runs with no module and no node_modules beside it', async () => {
    const alone = path.join(tempDir('server-alone-'), 'index.js');
    copyFileSync(path.join(REPO, bin['claude-checkpoint-mcp'] as string), alone);
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const client = await connect(alone, root);
    const saved = await client.callTool({
      name: 'save_session_checkpoint',
      arguments: { goal: 'ship the bundle', projectRoot: root },
    });
    expect(saved.isError, text(saved)).toBeFalsy();
    const loaded = await client.callTool({
      name: 'load_session_checkpoint',
      arguments: { projectRoot: root },
    });
    expect(loaded.isError).toBeFalsy();
    expect(text(loaded)).toContain('ship the bundle');
  });

  it('offers the same tools, with the same schemas, as the plain modules it is built from', async () => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const bundled = await connect(path.join(REPO, bin['claude-checkpoint-mcp'] as string), root);
    const plain = await connect(path.join(REPO, 'dist', 'server.js'), root);
    const [fromBundle, fromPlain] = await Promise.all([bundled.listTools(), plain.listTools()]);
    expect(fromBundle.tools.length).toBeGreaterThan(0);
    expect(fromBundle).toEqual(fromPlain);
  });
});

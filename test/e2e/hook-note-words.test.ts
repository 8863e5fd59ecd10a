import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

// Adversarial trial (issue 26): "claude-checkpoint hook PostToolUse: PostToolUse: no command in the hook input".
describe('a hook note names its event once', () => {
  it.each(['PostToolUse', 'PostToolUseFailure'])('%s with no command', async (event) => {
    const root = createRepo({ committed: { 'a.txt': 'one\n' } });
    const input = JSON.stringify({
      session_id: 'aaaaaaaa-1111-4222-8333-444444444444',
      cwd: root,
      tool_name: 'Bash',
      tool_input: {},
    });
    const result = await runCli(['hook', event], {
      cwd: root,
      env: { CHECKPOINT_STORE_DIR: tempDir('checkpoint-store-') },
      input,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      `claude-checkpoint hook ${event}: no command in the hook input; nothing recorded\n`,
    );
  });
});

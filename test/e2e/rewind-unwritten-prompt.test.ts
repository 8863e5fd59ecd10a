import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, runCli } from '../helpers/cli.js';
import { createRepo, tempDir } from '../helpers/fixtures.js';

beforeAll(assertBuilt);

const FIXTURE = readFileSync(new URL('../fixtures/claude-code-session.jsonl', import.meta.url), 'utf8');
const SESSION = 'b4c9ace5-a499-4748-b228-b65376c1eb91';

/** The fixture's transcript with its clock moved so that its last line was written `agoMs` before now. */
function recentTranscript(agoMs: number): string {
  const stamps = [...FIXTURE.matchAll(/"timestamp":"([^"]+)"/g)].map((match) => Date.parse(match[1] ?? ''));
  const shift = Date.now() - agoMs - Math.max(...stamps);
  return FIXTURE.replace(
    /"timestamp":"([^"]+)"/g,
    (_all, stamp: string) => `"timestamp":"${new Date(Date.parse(stamp) + shift).toISOString()}"`,
  );
}

describe('rewinding the conversation to a prompt the transcript never got (the agent died after the hook)', () => {
  // Regression (issue 26, trial of 2026-12-06): it forked at the prompt before (losing that turn) and
  // printed that one as the prompt to send again.
  it.each([
    ['its lines are missing', (text: string) => text],
    ['its line is cut mid-line', (text: string) => `${text}{"parentUuid":"x","type":"user","message":{"ro`],
  ])(
    'never forks at another prompt when %s',
    async (_title, damage) => {
      const root = createRepo({ committed: { 'a.txt': 'a\n' } });
      const env = {
        CHECKPOINT_STORE_DIR: tempDir('unwritten-store-'),
        CLAUDE_CONFIG_DIR: tempDir('unwritten-claude-'),
      };
      const transcript = path.join(tempDir('unwritten-transcript-'), `${SESSION}.jsonl`);
      writeFileSync(transcript, damage(recentTranscript(20_000)));
      const hook = await runCli(['hook', 'UserPromptSubmit'], {
        cwd: root,
        env,
        input: JSON.stringify({
          session_id: SESSION,
          transcript_path: transcript,
          cwd: root,
          prompt: 'epsilon: crashed before transcript',
          prompt_id: 'ffffffff-0000-4000-8000-000000000001',
          hook_event_name: 'UserPromptSubmit',
        }),
      });
      expect(hook.stderr).toBe('');
      const rewind = await runCli(['rewind', 'latest', '--conversation', '--session', SESSION, '--yes'], {
        cwd: root,
        env,
      });
      const out = rewind.stdout + rewind.stderr;
      expect(out).toContain('epsilon: crashed before transcript');
      expect(out).not.toContain('Step 3 third');
      expect(out).not.toContain('Step 1 first');
      expect(out).not.toContain('opened the session');
      expect(out).toMatch(/not found/);
    },
    60_000,
  );
});

import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { hooksInBothPlaces, inlineHookEvents } from '../../src/app/codex-inline-hooks.js';

// Codex's config.toml with inline hooks, as its hooks docs write them (developers.openai.com/codex/hooks):
// `[[hooks.<Event>]]` tables, and `[hooks.state]`, where Codex keeps its approvals, which is not a hook.
describe('inline hooks in a Codex config.toml', () => {
  it('names the events, leaves out the approvals, and escapes a key a terminal would act on', () => {
    const config = parse(
      '[[hooks.Stop]]\ncommand = "x"\n[[hooks."Pre\\u001b[31mTool"]]\ncommand = "y"\n[hooks.state]\n"abc" = { trusted_hash = "h" }\n',
    );
    const events = inlineHookEvents(config);
    expect(events).toEqual(['Stop', 'Pre\u001b[31mTool']);
    const { detail } = hooksInBothPlaces('/home/me/.codex/config.toml', '/home/me/.codex/hooks.json', events);
    expect(detail).toContain('[hooks] for Stop, Pre');
    expect(detail).not.toContain('\u001b');
  });
});

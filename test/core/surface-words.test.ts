import { describe, expect, it } from 'vitest';
import { type Surface, type SurfaceWords, WORDS } from '../../src/core/surface.js';

/**
 * Every message spliced from core/surface.ts's words, rendered for both surfaces (newcomer trial: "see
 * the handoffs there with a person can list them with …"). Each template is the one its call site uses.
 */
const SPLICES: ReadonlyArray<[string, (words: SurfaceWords) => string]> = [
  // app/handoff-pull.ts: no handoff of that name.
  ['listHandoffs', (w) => `${w.handoffNameField}: no handoff 'x' on remote 'origin': ${w.listHandoffs}`],
  [
    'listHandoffs, handoffName',
    (w) =>
      `${w.handoffNameField}: no handoff 'main' on remote 'origin' (without ${w.handoffNameField}, the handoff of the current branch): ${w.listHandoffs}; to pull another, ${w.handoffName}`,
  ],
  // app/handoff-common.ts: a detached HEAD.
  [
    'handoffName',
    (w) =>
      `${w.handoffNameField}: HEAD is detached, so there is no branch to name the handoff after: ${w.handoffName}`,
  ],
  // git/handoff-remote.ts: a remote named like an option.
  ['otherRemote', (w) => `it is not used (rename it with git remote rename, or ${w.otherRemote})`],
  // app/handoff-push.ts: the pre-push hook refused.
  ['skipPrePush', (w) => `nothing was pushed: fix what it reports, or ${w.skipPrePush}`],
  [
    'pullFirst, replaceHandoff',
    (w) => `someone else's handoff?: ${w.pullFirst('main')}, or ${w.replaceHandoff}`,
  ],
  // core/handoff-text.ts.
  ['allowSecrets', (w) => `Remove them, or ${w.allowSecrets} if they are not secrets.`],
  ['pullCheckout', (w) => `HEAD here is another commit. To continue from it, ${w.pullCheckout}.`],
  // core/snapshot-text.ts, core/brief.ts, core/checkpoint-text.ts.
  ['takeSnapshot', (w) => `No snapshots yet for this project. Take one with ${w.takeSnapshot}.`],
  ['listMore', (w) => `- … and 30 older (${w.listMore(50)} shows more)`],
  ['loadFull', (w) => `(brief cut to fit; ${w.loadFull} for everything)`],
  ['saveCheckpoint', (w) => `Start fresh, and save one with ${w.saveCheckpoint} after the first milestone.`],
  ['listSnapshots', (w) => `no snapshot 'x': see them with ${w.listSnapshots}`],
  ['removeDamaged', (w) => `nothing was changed; ${w.removeDamaged}`],
  ['keepBySaving', (w) => `are no longer in it; ${w.keepBySaving}.`],
  [
    'compareSnapshots',
    (w) => `path 'latest' is in neither …; 'latest' names a snapshot: ${w.compareSnapshots('a', 'b')}`,
  ],
  ['restoreOther', (w) => `path 'x' is in neither …; 'x' names a snapshot: ${w.restoreOther('x')}`],
];

const SURFACES: readonly Surface[] = ['cli', 'mcp'];

describe.each(SURFACES)('the %s words, spliced where they are used, read as sentences', (surface) => {
  it.each(SPLICES)('%s', (_words, render) => {
    const text = render(WORDS[surface]);
    // A clause spliced after a preposition ("with a person can …", "with pass …", "with call …").
    expect(text).not.toMatch(/\bwith (a person|pass|call)\b/);
    expect(text).not.toMatch(/\b(\w+) \1\b/i);
    if (surface === 'mcp') {
      // The model is never told a CLI flag, except in a command a person runs.
      expect(text.replace(/`claude-checkpoint [^`]*`/g, '')).not.toMatch(/(^|\s)--[a-z]/);
    } else expect(text).not.toMatch(/\b[a-z]+_(handoff|snapshot|snapshots|checkpoint|files)\b|dryRun/);
  });
});

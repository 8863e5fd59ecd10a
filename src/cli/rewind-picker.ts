import type { CliContext } from './context.js';
import { EXIT } from './output.js';

/** The interactive picker over a session's prompts (in progress). */
export async function runRewindPicker(
  ctx: CliContext,
  _request: {
    projectRoot: string | undefined;
    sessionId: string | undefined;
    all: boolean;
    ref?: string | undefined;
  },
): Promise<number> {
  ctx.out.note(
    'The rewind menu is not available yet: use `claude-checkpoint rewind --list` and `rewind <ref> --code|--conversation|--both`.',
  );
  return EXIT.usage;
}

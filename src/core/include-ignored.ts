// The snapshotIncludeIgnored patterns (issue 25): git-ignored files that snapshots hold anyway. The
// patterns read as in .gitignore: one without a slash matches a name at any depth, one with a slash
// is anchored at the project's root, `**` spans folders, and a pattern that matches a folder takes
// everything in it. The matcher here decides; git's pathspecs only narrow where git looks.

/** Whether a project-relative, `/`-separated path is one the patterns include. */
export type IncludeMatcher = (file: string) => boolean;

/** One step of a compiled pattern: a character, one of a class, or a run. */
type Token =
  | { kind: 'char'; char: string }
  | { kind: 'one' } // `?`: one character but `/`
  | { kind: 'class'; test: (char: string) => boolean } // `[ab]`, `[!ab]`: one character but `/`
  | { kind: 'star' } // `*`: a run of characters but `/`
  | { kind: 'dirs' } // `**/` at a folder's start: nothing, or a run that ends with `/`
  | { kind: 'any' }; // `/**` at the end: any run

interface Compiled {
  tokens: Token[];
  /** Anchored at the root (the pattern has a slash before its end). */
  anchored: boolean;
}

function compile(glob: string): Compiled {
  const trimmed = glob.replace(/\/+$/, '');
  const anchored = trimmed.includes('/');
  const body = trimmed.replace(/^\/+/, '');
  const tokens: Token[] = [];
  for (let index = 0; index < body.length; index++) {
    const char = body[index] as string;
    if (body.startsWith('**/', index) && (index === 0 || body[index - 1] === '/')) {
      tokens.push({ kind: 'dirs' });
      index += 2;
    } else if (body.startsWith('**', index) && index + 2 === body.length && body[index - 1] === '/') {
      tokens.push({ kind: 'any' });
      index += 1;
    } else if (char === '*') tokens.push({ kind: 'star' });
    else if (char === '?') tokens.push({ kind: 'one' });
    else if (char === '\\' && index + 1 < body.length)
      tokens.push({ kind: 'char', char: body[++index] as string });
    else if (char === '[') {
      const end = body.indexOf(']', index + 2);
      if (end === -1) tokens.push({ kind: 'char', char });
      else {
        const inner = body
          .slice(index + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        // A class is tested on one character at a time: it cannot backtrack.
        const single = new RegExp(`^[${inner}]$`);
        tokens.push({ kind: 'class', test: (c) => c !== '/' && single.test(c) });
        index = end;
      }
    } else tokens.push({ kind: 'char', char });
  }
  return { tokens, anchored };
}

/**
 * Whether `file` matches, or lies inside a folder that matches: the pattern's steps run side by side
 * over the path's characters (a set of states, never backtracking), so the time grows with the path's
 * length times the pattern's, however many stars it has (issue 26: a regular expression built from
 * `*a*a*a*a*a*b` backtracked for years on a long name).
 */
function matches({ tokens, anchored }: Compiled, file: string): boolean {
  const count = tokens.length;
  // states[i]: the pattern has matched its first i steps (a `*` step stays there while it runs);
  // inDirs[i]: inside the run of a `**/` step, which only a `/` ends.
  let states = new Uint8Array(count + 1);
  let inDirs = new Uint8Array(count);
  const close = (set: Uint8Array) => {
    // A run (`*`, `**/`, `/**`) may match nothing: its next step is reached at once.
    for (let i = 0; i < count; i++) {
      const kind = (tokens[i] as Token).kind;
      if (set[i] && (kind === 'star' || kind === 'dirs' || kind === 'any')) set[i + 1] = 1;
    }
  };
  const start = (set: Uint8Array) => {
    set[0] = 1;
    close(set);
  };
  start(states);
  for (let at = 0; at <= file.length; at++) {
    // Done: all steps matched, at the end or where a folder that matched ends.
    if (states[count] && (at === file.length || file[at] === '/')) return true;
    if (at === file.length) break;
    const char = file[at] as string;
    const next = new Uint8Array(count + 1);
    const nextDirs = new Uint8Array(count);
    for (let i = 0; i < count; i++) {
      const token = tokens[i] as Token;
      if (token.kind === 'dirs' && (states[i] || inDirs[i])) {
        nextDirs[i] = 1;
        if (char === '/') next[i + 1] = 1;
      }
      if (!states[i]) continue;
      if (
        token.kind === 'char'
          ? char === token.char
          : token.kind === 'one'
            ? char !== '/'
            : token.kind === 'class'
              ? token.test(char)
              : false
      )
        next[i + 1] = 1;
      else if ((token.kind === 'star' && char !== '/') || token.kind === 'any') next[i] = 1;
    }
    close(next);
    // A name without a slash matches at any depth: it starts again after each `/`.
    if (!anchored && char === '/') start(next);
    // Nothing left to match: anchored, no match; else the next `/` starts again.
    if (anchored && !next.includes(1) && !nextDirs.includes(1)) return false;
    states = next;
    inDirs = nextDirs;
  }
  return false;
}

export function includeMatcher(globs: readonly string[]): IncludeMatcher {
  const compiled = globs.map(compile);
  return (file) => compiled.some((pattern) => matches(pattern, file));
}

/**
 * Where git should look for candidates: `anywhere` for a listing that does not enter ignored folders
 * (cheap: node_modules stays closed), `anchored` for one that does, which git narrows to the folders
 * each pattern names.
 */
export function includePathspecs(globs: readonly string[]): { anywhere: string[]; anchored: string[] } {
  const anywhere: string[] = [];
  const anchored: string[] = [];
  for (const glob of globs) {
    const pattern = compile(glob);
    const body = glob.replace(/\/+$/, '').replace(/^\/+/, '');
    if (pattern.anchored) {
      anchored.push(`:(glob)${body}`, `:(glob)${body}/**`);
    } else anywhere.push(`:(glob)**/${body}`, `:(glob)**/${body}/**`);
  }
  return { anywhere, anchored };
}

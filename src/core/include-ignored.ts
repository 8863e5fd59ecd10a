// The snapshotIncludeIgnored patterns (issue 25): git-ignored files that snapshots hold anyway. The
// patterns read as in .gitignore: one without a slash matches a name at any depth, one with a slash
// is anchored at the project's root, `**` spans folders, and a pattern that matches a folder takes
// everything in it. The matcher here decides; git's pathspecs only narrow where git looks.

/** Whether a project-relative, `/`-separated path is one the patterns include. */
export type IncludeMatcher = (file: string) => boolean;

interface Compiled {
  regex: RegExp;
  /** Anchored at the root (the pattern has a slash before its end). */
  anchored: boolean;
}

function compile(glob: string): Compiled {
  const trimmed = glob.replace(/\/+$/, '');
  const anchored = trimmed.includes('/');
  const body = trimmed.replace(/^\/+/, '');
  let source = '';
  for (let index = 0; index < body.length; index++) {
    const char = body[index] as string;
    if (body.startsWith('**/', index) && (index === 0 || body[index - 1] === '/')) {
      source += '(?:.*/)?';
      index += 2;
    } else if (body.startsWith('**', index) && index + 2 === body.length && body[index - 1] === '/') {
      source += '.*';
      index += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '\\' && index + 1 < body.length) source += escapeRegex(body[++index] as string);
    else if (char === '[') {
      const end = body.indexOf(']', index + 2);
      if (end === -1) source += '\\[';
      else {
        const inner = body
          .slice(index + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${inner}]`;
        index = end;
      }
    } else source += escapeRegex(char);
  }
  // A match names the path itself or one of its folders: what is inside a matched folder is included.
  const regex = new RegExp(anchored ? `^${source}(?:/.*)?$` : `(?:^|/)${source}(?:/.*)?$`);
  return { regex, anchored };
}

function escapeRegex(char: string): string {
  return char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

export function includeMatcher(globs: readonly string[]): IncludeMatcher {
  const compiled = globs.map(compile);
  return (file) => compiled.some((pattern) => pattern.regex.test(file));
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

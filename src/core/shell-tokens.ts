// Splits a shell command line into words and operators as POSIX sh reads it: quotes and escapes removed,
// `&&`, `||`, `;`, pipes, `&` and parentheses as operators, redirections with their file descriptor
// dropped, comments and here-document bodies skipped (they are text, not commands), and the command
// lines inside `$( )`, backquotes and `<( )` handed back to be read on their own. Never throws: an
// unterminated quote or substitution runs to the end of the line. Pure.

export interface Word {
  kind: 'word';
  text: string;
  /** Its first character was quoted or escaped: a `~` or `$` there is itself, not the home folder or a variable. */
  quotedStart?: true;
}
export interface Operator {
  kind: 'op';
  op: string;
  /** A here-document's (`<<`, `<<-`) body: data to most commands, the script to a shell that reads its stdin. */
  body?: string;
}
export type Token = Word | Operator;

export interface Tokenized {
  tokens: Token[];
  /** The text of every `$( )`, backquote and `<( )`, each a command line of its own. */
  substitutions: string[];
}

const OPERATORS = ['&&', '||', ';;', '|&', ';', '|', '&', '(', ')', '\n'];
export const REDIRECTIONS = ['&>>', '&>', '>>', '>|', '>&', '<<<', '<<-', '<<', '<>', '<&', '>', '<'];

/** Splits a line into words (quotes and escapes removed) and operators, as POSIX sh reads them. */
export function tokenize(line: string): Tokenized {
  const tokens: Token[] = [];
  const substitutions: string[] = [];
  const heredocs: Heredoc[] = [];
  let word = '';
  let inWord = false;
  let quotedStart = false;
  let i = 0;
  const endWord = () => {
    if (inWord)
      tokens.push(quotedStart ? { kind: 'word', text: word, quotedStart } : { kind: 'word', text: word });
    word = '';
    inWord = false;
    quotedStart = false;
  };
  while (i < line.length) {
    const char = line[i] as string;
    if (char === ' ' || char === '\t') {
      endWord();
      i++;
    } else if (char === '#' && !inWord) {
      while (i < line.length && line[i] !== '\n') i++;
    } else if (char === '\\') {
      // A backslash-newline joins lines; any other escaped character is itself.
      if (line[i + 1] !== '\n') {
        if (word === '') quotedStart = true;
        word += line[i + 1] ?? '';
        inWord = true;
      }
      i += 2;
    } else if (char === "'") {
      const end = line.indexOf("'", i + 1);
      const stop = end === -1 ? line.length : end;
      if (word === '') quotedStart = true;
      word += line.slice(i + 1, stop);
      inWord = true;
      i = stop + 1;
    } else if (char === '"') {
      i++;
      if (word === '') quotedStart = true;
      inWord = true;
      while (i < line.length && line[i] !== '"') {
        const inner = line[i] as string;
        if (inner === '\\' && '"\\$`\n'.includes(line[i + 1] ?? '')) {
          if (line[i + 1] !== '\n') word += line[i + 1];
          i += 2;
        } else if ((inner === '$' && line[i + 1] === '(') || inner === '`') {
          const end = inner === '`' ? closingBackquote(line, i) : closingParen(line, i + 1);
          substitutions.push(line.slice(i + (inner === '`' ? 1 : 2), end));
          word += '$';
          i = end + 1;
        } else {
          word += inner;
          i++;
        }
      }
      i++;
    } else if ((char === '$' || char === '<' || char === '>') && line[i + 1] === '(') {
      // $( ) and the process substitutions <( ) and >( ) run a command line of their own.
      const end = closingParen(line, i + 1);
      substitutions.push(line.slice(i + 2, end));
      word += '$';
      inWord = true;
      i = end + 1;
    } else if (char === '`') {
      const end = closingBackquote(line, i);
      substitutions.push(line.slice(i + 1, end));
      word += '$';
      inWord = true;
      i = end + 1;
    } else if (char === '$' && line[i + 1] === '{') {
      const end = line.indexOf('}', i);
      const stop = end === -1 ? line.length : end;
      word += line.slice(i, stop + 1);
      inWord = true;
      i = stop + 1;
    } else if (char === '<' || char === '>' || (char === '&' && line[i + 1] === '>')) {
      const op = REDIRECTIONS.find((candidate) => line.startsWith(candidate, i)) as string;
      // `2>` and `1>`: digits right before the operator name a file descriptor, not a word.
      if (inWord && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      }
      endWord();
      const token: Operator = { kind: 'op', op };
      tokens.push(token);
      i += op.length;
      if (op === '<<' || op === '<<-') {
        const delimiter = readHeredocDelimiter(line, i);
        heredocs.push({
          delimiter: delimiter.text,
          stripTabs: op === '<<-',
          isQuoted: delimiter.isQuoted,
          token,
        });
        i = delimiter.end;
      }
    } else if (OPERATORS.some((op) => line.startsWith(op, i))) {
      const op = OPERATORS.find((candidate) => line.startsWith(candidate, i)) as string;
      endWord();
      tokens.push({ kind: 'op', op });
      i += op.length;
      if (op === '\n' && heredocs.length > 0)
        i = skipHeredocBodies(line, i, heredocs.splice(0), substitutions);
    } else {
      word += char;
      inWord = true;
      i++;
    }
  }
  endWord();
  return { tokens, substitutions };
}

/** The `)` closing the `(` at `open`, past quotes and nested parentheses; the line's end if none. */
function closingParen(line: string, open: number): number {
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    const char = line[i];
    if (char === '\\') i++;
    else if (char === "'") {
      const end = line.indexOf("'", i + 1);
      if (end === -1) return line.length;
      i = end;
    } else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return i;
  }
  return line.length;
}

function closingBackquote(line: string, open: number): number {
  for (let i = open + 1; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '`') return i;
  }
  return line.length;
}

interface Heredoc {
  delimiter: string;
  stripTabs: boolean;
  /** `<<'EOF'`: the body is taken as written; otherwise its `$( )` and backquotes run. */
  isQuoted: boolean;
  /** The `<<` operator, which is given the body once it is read. */
  token: Operator;
}

function readHeredocDelimiter(line: string, start: number): { text: string; end: number; isQuoted: boolean } {
  let i = start;
  while (line[i] === ' ' || line[i] === '\t') i++;
  let text = '';
  let isQuoted = false;
  while (i < line.length && !' \t\n;&|<>()'.includes(line[i] as string)) {
    if (line[i] !== "'" && line[i] !== '"' && line[i] !== '\\') text += line[i];
    else isQuoted = true;
    i++;
  }
  return { text, end: i, isQuoted };
}

/**
 * A here-document's body is no command of this line: skips each, from `start`, to its delimiter line, and
 * hands its text to its `<<` operator; the `$( )` and backquotes of an unquoted one go to `substitutions`
 * (the shell runs them while it reads the body).
 */
function skipHeredocBodies(
  line: string,
  start: number,
  heredocs: Heredoc[],
  substitutions: string[],
): number {
  let i = start;
  for (const heredoc of heredocs) {
    const bodyStart = Math.min(i, line.length);
    let bodyEnd = line.length;
    while (i < line.length) {
      const end = line.indexOf('\n', i);
      const stop = end === -1 ? line.length : end;
      const text = line.slice(i, stop);
      if ((heredoc.stripTabs ? text.replace(/^\t+/, '') : text) === heredoc.delimiter) {
        bodyEnd = i;
        i = stop + 1;
        break;
      }
      i = stop + 1;
    }
    heredoc.token.body = line.slice(bodyStart, bodyEnd);
    if (!heredoc.isQuoted) bodySubstitutions(heredoc.token.body, substitutions);
  }
  return Math.min(i, line.length);
}

/** The `$( )` and backquotes of an unquoted here-document's body (a `\` keeps the next character as itself). */
function bodySubstitutions(body: string, substitutions: string[]): void {
  for (let i = 0; i < body.length; i++) {
    const char = body[i];
    if (char === '\\') i++;
    else if (char === '`') {
      const end = closingBackquote(body, i);
      substitutions.push(body.slice(i + 1, end));
      i = end;
    } else if (char === '$' && body[i + 1] === '(') {
      const end = closingParen(body, i + 1);
      substitutions.push(body.slice(i + 2, end));
      i = end;
    }
  }
}

// Splits a PowerShell command line into its simple commands, for the destructive-command gate
// (command-risk.ts): words with quotes and escapes removed, and the redirections. Pure; never throws.

export interface PowerShellCommand {
  words: string[];
  redirections: { op: string; target: string }[];
}

/**
 * A PowerShell line split into its simple commands, as far as the gate needs: quotes ('' inside single
 * quotes, the backtick escape), comments, and `;`, `|`, `&&`, `||`, `&`, braces and parentheses (script
 * blocks and subexpressions are read as commands of their own). Never throws.
 */
export function splitPowerShell(line: string): PowerShellCommand[] {
  const commands: PowerShellCommand[] = [];
  let command: PowerShellCommand = { words: [], redirections: [] };
  let word = '';
  let inWord = false;
  let redirect: string | null = null;
  const endWord = () => {
    if (inWord) {
      if (redirect !== null) command.redirections.push({ op: redirect, target: word });
      else command.words.push(word);
      redirect = null;
    }
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (command.words.length > 0 || command.redirections.length > 0) commands.push(command);
    command = { words: [], redirections: [] };
  };
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (char === ' ' || char === '\t' || char === '\r') endWord();
    else if (char === '`') {
      if (line[i + 1] !== '\n') {
        word += line[i + 1] ?? '';
        inWord = true;
      }
      i++;
    } else if (char === '#' && !inWord) {
      const blockEnd = line[i - 1] === '<' ? line.indexOf('#>', i) : -1;
      while (i < line.length && line[i] !== '\n' && blockEnd === -1) i++;
      if (blockEnd !== -1) i = blockEnd + 1;
    } else if (char === "'") {
      inWord = true;
      for (i++; i < line.length; i++) {
        if (line[i] === "'" && line[i + 1] === "'") {
          word += "'";
          i++;
        } else if (line[i] === "'") break;
        else word += line[i];
      }
    } else if (char === '"') {
      inWord = true;
      for (i++; i < line.length && line[i] !== '"'; i++) {
        if (line[i] === '`') word += line[++i] ?? '';
        else word += line[i];
      }
    } else if (char === '>' || (char === '<' && line[i + 1] === '#')) {
      if (char === '<') continue;
      // `2>`, `*>`: the stream's number is part of the operator.
      if (/^[\d*]$/.test(word)) {
        word = '';
        inWord = false;
      }
      endWord();
      const appends = line[i + 1] === '>';
      if (appends) i++;
      if (line[i + 1] === '&') {
        i += 2; // `2>&1`: into another stream
        continue;
      }
      redirect = appends ? '>>' : '>';
    } else if (';|&{}()\n'.includes(char)) {
      endCommand();
      if (line[i + 1] === char && (char === '|' || char === '&')) i++;
    } else if (char === '$' && line[i + 1] === '(') {
      endCommand();
      i++;
    } else {
      word += char;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

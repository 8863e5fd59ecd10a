// How Gemini CLI and Copilot CLI end the text their shell tools give the model: the exit code is in the
// agent's own trailer, after the output, and nowhere else counts. The output is the command's own text,
// and may say "exit 1" or "exited with code 0" any number of times (trial 4 of issue 26, item 3: a `cat`
// of a script that says `exit 1` was recorded as failed, and a success as the turn's end read it too).

/** A shell call's outcome as the agent's text says it; `exitCode` absent when the text does not say. */
export interface ShellTextOutcome {
  exitCode?: number | undefined;
  /** The command's output, without the agent's framing. */
  output: string;
}

/**
 * Gemini CLI's `run_shell_command` result (packages/core/src/tools/shell.ts): "Output: <output>", then
 * one line each of "Error: …", "Exit Code: N" (only when not 0), "Signal: …", "Background PIDs: …" and
 * "Process Group PGID: N", all optional; newer versions wrap it all in `<untrusted_context>`. A command
 * that ran has "Output:"; without it (cancelled, moved to the background, refused) the outcome is not
 * known: `null`. One a signal ended failed: 128 + the signal's number, as a shell says it.
 */
export function geminiShellOutcome(text: string): ShellTextOutcome | null {
  const body = unwrapUntrusted(text);
  if (!body.startsWith('Output:')) return null;
  const lines = body.split('\n');
  let exitCode: number | undefined;
  let signal: string | undefined;
  // The trailer is read from the end: its lines come in this order, each at most once.
  const trailer = [/^Process Group PGID: \S*$/, /^Background PIDs: [\d, ]*$/, /^Signal: (\S*)$/];
  for (const pattern of trailer) {
    const found = pattern.exec(lines.at(-1) ?? '');
    if (!found || lines.length <= 1) continue;
    if (found[1] !== undefined) signal = found[1];
    lines.pop();
  }
  const code = /^Exit Code: (-?\d+)$/.exec(lines.at(-1) ?? '');
  if (code?.[1] !== undefined && lines.length > 1) {
    exitCode = Number(code[1]);
    lines.pop();
  }
  // Gemini CLI writes the number of the signal that ended the command (its shell tool, packages/core/src/
  // tools/shell.ts): a failure, with the code a shell gives it (128 + the number: 137 for SIGKILL). A
  // signal it does not name by number leaves the outcome unknown.
  if (signal !== undefined && (exitCode === undefined || exitCode === 0)) {
    if (!/^\d+$/.test(signal)) return null;
    exitCode = 128 + Number(signal);
  }
  return { exitCode: exitCode ?? 0, output: lines.join('\n').replace(/^Output: ?/, '') };
}

/** Gemini CLI 0.3x wraps what a tool gives the model as `<untrusted_context>\n…\n</untrusted_context>`. */
function unwrapUntrusted(text: string): string {
  const trimmed = text.trim();
  const open = '<untrusted_context>';
  const close = '</untrusted_context>';
  if (!trimmed.startsWith(open) || !trimmed.endsWith(close)) return trimmed;
  return trimmed.slice(open.length, -close.length).trim();
}

/**
 * Copilot CLI's shell result ends "<shellId: 0 completed with exit code 3>"; a command still running
 * ("<command started in background with shellId: 4>") has no exit code yet: `null`.
 */
export function copilotShellOutcome(text: string): ShellTextOutcome | null {
  const trailer = /\n?<shellId: [^>\n]* completed with exit code (-?\d+)>\s*$/.exec(text);
  if (trailer?.[1] === undefined) return null;
  return { exitCode: Number(trailer[1]), output: text.slice(0, trailer.index) };
}

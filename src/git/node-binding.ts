/**
 * One of Node's internal bindings (`process.binding(name)`), or an error when there is none. The call is
 * deprecated, and under --pending-deprecation Node warns of it on stderr, after the call returns (so no
 * try/catch sees it), and --throw-deprecation makes that warning crash the process: a hook must stay silent
 * and record its event, and a command's stderr is its own, so the warning is turned off for the call alone
 * (issue 26). Used by the hooks' relay and input, and by git's spawning (spawn-direct.ts).
 */
export function nodeBinding<T>(name: string): T {
  const wasSilenced = process.noDeprecation;
  const { emitWarning } = process;
  process.noDeprecation = true;
  // Not even called: for `v8` it compiles Node's emitWarning from source to return at once (issue 26).
  process.emitWarning = () => undefined;
  try {
    return (process as unknown as { binding(name: string): T }).binding(name);
  } finally {
    process.noDeprecation = wasSilenced;
    process.emitWarning = emitWarning;
  }
}

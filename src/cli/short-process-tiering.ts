import { nodeBinding } from '../git/node-binding.js';

// A CLI command is one short process. V8 starts its optimising compiler (TurboFan) on any function
// that has run a few hundred times: in `status`, path.join's `normalizeString` after about 150 joins,
// 6 ms of compiling on a second thread while git and the command need both of a 2-core machine's
// cores, for code the process is done with before it is ready (9M of `status`'s 151M instructions,
// 4M of a snapshot's at M; issue 26). Four times V8's interrupt budget, and no optimising a small
// function on its first tick (isPosixPathSeparator, called once per character of a path, was so at the
// first budget, set before this runs), keep a short command in the interpreter and the baseline
// compiler; a loop that is really hot (a large tree's listing) is still optimised, a little later.
// A regular expression is compiled to machine code at once, not first to bytecode that a second run
// replaces: a process's first redaction runs some hundred patterns, most of them twice or more, and
// compiled them twice (56M of its 283M instructions on a full checkpoint; `status` 3M fewer too).
// No young-generation collection on a task: V8 posts one once the young generation is 80% full, and
// `status` crossed that line near its end, to collect 2M instructions' worth of objects the process was
// about to drop (a scavenge still runs when the young generation is really full).
// The long-lived processes (the MCP server, a hook host) keep V8's defaults.
export const SHORT_PROCESS_V8_FLAGS =
  '--interrupt-budget=270336 --max-bytecode-size-for-early-opt=0 --no-regexp-tier-up --no-minor-gc-task';

/**
 * Sets SHORT_PROCESS_V8_FLAGS for this process, before any code cache is read (V8 checks a cache
 * against the flags it was made with, so every run must set them at the same point). Not for the
 * general help, which runs too little to need it. Where the binding is missing, V8's defaults stay.
 */
export function tuneForShortProcess(): void {
  try {
    nodeBinding<{ setFlagsFromString(flags: string): void }>('v8').setFlagsFromString(SHORT_PROCESS_V8_FLAGS);
  } catch {
    // A Node without the binding (or a permission model that refuses it): the defaults are correct too.
  }
}

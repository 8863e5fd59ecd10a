import type { Command, Option } from 'commander';
import { escapeControls } from '../core/quote.js';

// commander keeps the last value of a flag given twice (`list --limit 5 --limit 7` listed 7), in silence
// (bad-input trial). A flag that takes one value is refused when given again with another value; the repeatable ones
// (`save --task`, `--next`, …) collect their values through a parser of their own and are left alone.

/** Whether `option` takes exactly one value: a value flag that neither collects nor is variadic. */
function takesOneValue(option: Option): boolean {
  return (option.required || option.optional) && !option.variadic && option.parseArg === undefined;
}

/**
 * Calls `onRepeat` with a flag each time `command` is given it again on one command line, with the value
 * it had and the new one. The program's `--root` and a command's own are two flags (docs/cli.md: the one
 * after the command's name wins).
 */
export function watchRepeatedValues(
  command: Command,
  onRepeat: (option: Option, first: string, again: string) => void,
): void {
  for (const option of command.options) {
    if (!takesOneValue(option)) continue;
    let given: string | undefined;
    command.on(`option:${option.name()}`, (value: string) => {
      // The same value again (a printed command run with one's usual --root added) is no doubt: taken once.
      if (given === undefined) given = value;
      else if (value !== given) onRepeat(option, given, value);
    });
  }
}

/** Refuses, as a usage error naming the flag, a flag of one value given twice, on `command` and every subcommand. */
export function refuseRepeatedValues(command: Command, skip: ReadonlySet<string> = new Set()): void {
  watchRepeatedValues(command, (option, first, again) =>
    command.error(
      `error: option '${option.flags}' was given twice ('${escapeControls(first)}', then '${escapeControls(again)}'): it takes one value; give it once`,
      { exitCode: 2, code: 'claude-checkpoint.repeatedOption' },
    ),
  );
  for (const sub of command.commands) if (!skip.has(sub.name())) refuseRepeatedValues(sub, skip);
}

import { writeText } from './stdio.js';

/**
 * The general help as commander prints it off a terminal (80 columns, no colours): taken from the whole
 * CLI's parser by scripts/bundle.mjs when it builds the loader, which prints it without loading the CLI.
 */
declare const CLI_HELP_TEXT: string;

/** Writes the general help to stdout, which must be no terminal (a terminal's help fits its width). */
export function writeGeneralHelp(): number {
  writeText(1, CLI_HELP_TEXT);
  return 0; // EXIT.ok (output.ts, which the loader does not load)
}

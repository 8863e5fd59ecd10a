import { fstatSync, statSync } from 'node:fs';

/**
 * Whether `fd` is surely not a terminal: not a character device, or /dev/null. Any other character
 * device (a terminal, or something rarer) is left to Node's stream, which tells them apart exactly. Apart
 * from stdio.ts so that the CLI's loader can ask it without loading the rest.
 */
export function isSurelyNoTerminal(fd: 1 | 2): boolean {
  try {
    const stats = fstatSync(fd);
    if (!stats.isCharacterDevice()) return true;
    const devNull = statSync('/dev/null', { throwIfNoEntry: false });
    return devNull !== undefined && devNull.rdev === stats.rdev && devNull.ino === stats.ino;
  } catch {
    return false; // no such descriptor, or no fstat: Node's stream decides
  }
}

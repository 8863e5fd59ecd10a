let counter = 0;

/**
 * A suffix that no other writer picks: this process's pid, a per-process counter, the time and a random
 * part. Temp files are created exclusively (O_EXCL, never through a symlink), so uniqueness is all it
 * needs; not loading `node:crypto` for it keeps the hooks' start-up cheap.
 */
export function uniqueSuffix(): string {
  counter += 1;
  const random = Math.floor(Math.random() * 0xffffffff).toString(16);
  // All hex after the pid: the clean-up of a killed writer's temp files matches `<pid>-<hex>`.
  return `${process.pid}-${counter.toString(16)}${Date.now().toString(16)}${random}`;
}

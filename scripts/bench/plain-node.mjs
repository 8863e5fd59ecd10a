// The bench measures the `node` a user starts, on both sides of every row. Some environments set
// variables that make every `node` process do work before any of its code runs: NODE_EXTRA_CA_CERTS
// makes it read and parse a certificate bundle (the system's whole bundle took about 40 ms a start on
// the 2-core machine, where a plain `node -e 0` takes about 35 ms). Both sides pay it, so it adds the
// same time to ours and to the floor and flattens every ratio against a `node` floor. The bench drops
// such variables for itself and every process it starts, and says so in its report.
const EXTRA_START_UP_WORK = ['NODE_EXTRA_CA_CERTS'];

/** Removes the variables from `env` (the bench's own, by default); returns the names it removed. */
export function usePlainNode(env = process.env) {
  const removed = EXTRA_START_UP_WORK.filter((name) => env[name] !== undefined);
  for (const name of removed) delete env[name];
  return removed;
}

/** The report's sentence about what was removed ('' when nothing was). */
export function plainNodeNote(removed) {
  return removed.length === 0
    ? ''
    : `${removed.join(', ')} was set in the environment and removed for the bench: with it every \`node\` start does extra work before any code runs, on both sides of a row.`;
}

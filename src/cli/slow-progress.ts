import type { Output } from './output.js';

/** Work shorter than this shows no progress: a line that flashes by is noise. */
export const PROGRESS_DELAY_MS = 2_000;

export interface SlowProgress {
  /** What is being done now; shown once the work has run for PROGRESS_DELAY_MS. */
  update: (text: string) => void;
  end: () => void;
}

/**
 * Progress for work that can take long (a first snapshot of a big tree, gc): nothing for its first two
 * seconds, then what it is doing and the seconds so far, refreshed each second. Shown only where
 * Output.progress shows it: on stderr when that is a terminal, and never with --json.
 */
export function slowProgress(out: Output, now: () => number = Date.now): SlowProgress {
  const started = now();
  let text = '';
  const show = () => {
    const elapsed = now() - started;
    if (elapsed >= PROGRESS_DELAY_MS && text) out.progress(`${text} (${Math.floor(elapsed / 1000)} s)`);
  };
  const timer = setInterval(show, 1_000);
  timer.unref();
  return {
    update: (next) => {
      text = next;
      show();
    },
    end: () => {
      clearInterval(timer);
      out.endProgress();
    },
  };
}

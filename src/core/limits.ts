/**
 * Every limit of the checkpoint, in one place. The list limits and the 64 KB cap come from the
 * original tool's documentation; the per-item lengths are ours (the original says only that every
 * field has one) and are generous enough for real notes while keeping the brief small.
 */
export const LIMITS = {
  goalChars: 500,
  tasks: 30,
  taskDescriptionChars: 300,
  summaryChars: 4000,
  nextSteps: 20,
  nextStepChars: 500,
  decisions: 20,
  decisionChars: 500,
  modifiedFiles: 100,
  pathChars: 1024,
  noteChars: 500,
  recentCommands: 50,
  commandChars: 2000,
  commandNoteChars: 500,
  projectRootChars: 4096,
  /** The whole file, as written to disk. */
  fileBytes: 64 * 1024,
  /** Files larger than this on disk are not even parsed: nothing we write can be this big. */
  readBytes: 1024 * 1024,
} as const;

/** How much of the checkpoint the markdown brief shows; the rest stays available with `format: "full"`. */
export const BRIEF_LIMITS = {
  files: 40,
  commands: 10,
} as const;

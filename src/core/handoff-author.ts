/**
 * The author of a handoff pushed where git has no identity (user.name, user.email unset). The commit's
 * own author is the store's placeholder identity, which names nobody (issue 26). Apart from
 * handoff-text.ts so that the brief reads it without loading the handoff's renderers.
 */
export const NO_GIT_IDENTITY = '(no git identity)';

/** How the brief labels what came from the agent's transcript rather than from its own save. */
export const FROM_TRANSCRIPT = 'from the session transcript';

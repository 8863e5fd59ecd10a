/** One finding of `doctor`: what was checked, how it stands, and what to do about it. */
export type CheckLevel = 'ok' | 'warn' | 'fail';

export interface Check {
  name: string;
  level: CheckLevel;
  detail: string;
  fix?: string;
}

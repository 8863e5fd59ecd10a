import { isTalkAboutWork } from '../core/transcript.js';

/**
 * Picks "where things stand" while a reader goes through a transcript backwards: the last reply of the
 * newest turn that did work (called any tool), or of a later turn whose reply is long enough to say
 * something of the work (TALK_REPLY_MIN_CHARS). A trivial last reply ("Noted." to "Thanks") never hides
 * the status before it (trial 4). The reader calls `text` for each assistant text, `work` for each tool
 * call and `turnStart` for each prompt, newest first.
 */
export class StatusPick {
  private picked: string | undefined;
  private pickedAt: string | undefined;
  private turnText: string | undefined;
  private turnTextAt: string | undefined;
  private turnWorked = false;
  /** Whether the newest turn read called a tool; `undefined` until a tool call or a prompt decides it. */
  newestTurnWorked: boolean | undefined;
  private isNewestTurn = true;

  /** Whether the status is still to be found: the reader need not parse a text otherwise. */
  get wants(): boolean {
    return this.picked === undefined;
  }

  get status(): string | undefined {
    return this.picked;
  }

  /** When the picked reply was written, where the transcript says (ISO 8601). */
  get statusAt(): string | undefined {
    return this.picked === undefined ? undefined : this.pickedAt;
  }

  /** `at`: when the reply was written, where the transcript records it. */
  text(value: string | undefined, at?: string): void {
    const text = value?.trim();
    if (this.picked !== undefined || !text || this.turnText !== undefined) return;
    this.turnText = text;
    this.turnTextAt = at;
    if (this.turnWorked) this.pick();
  }

  work(): void {
    if (this.isNewestTurn) this.newestTurnWorked = true;
    this.turnWorked = true;
    if (this.picked === undefined && this.turnText !== undefined) this.pick();
  }

  turnStart(): void {
    if (this.isNewestTurn) this.newestTurnWorked ??= false;
    this.isNewestTurn = false;
    this.settleTurn();
    this.turnText = undefined;
    this.turnTextAt = undefined;
    this.turnWorked = false;
  }

  /**
   * At the oldest line read. `continuedWorked`: the turn read in part began before this read, and a read
   * before found it did work (a tool call then, its reply now).
   */
  finish(continuedWorked = false): string | undefined {
    if (continuedWorked) {
      this.turnWorked = true;
      if (this.isNewestTurn) this.newestTurnWorked = true;
    }
    this.settleTurn();
    return this.picked;
  }

  private settleTurn(): void {
    if (this.picked !== undefined || this.turnText === undefined) return;
    if (this.turnWorked || isTalkAboutWork(this.turnText)) this.pick();
  }

  private pick(): void {
    this.picked = this.turnText;
    this.pickedAt = this.turnTextAt;
  }
}

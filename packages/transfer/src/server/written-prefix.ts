/**
 * How far a file is written when writes run at once and may end in any order: to the end of
 * the last write that ended with every write before it (a checkpoint may confirm only that).
 */
export class WrittenPrefix {
  /** Where the data of the writes begun so far ends. */
  private submitted: number;
  /** Where the written prefix ends. */
  private written: number;
  /** The writes begun and not yet in the prefix, in file order: where each ends, and if it ended. */
  private readonly pending: { end: number; ended: boolean }[] = [];

  /** `bytes`: where the file's written data ends now. */
  constructor(bytes: number) {
    this.submitted = bytes;
    this.written = bytes;
  }

  /**
   * A write of `n` bytes after the last one begun: returns where it goes, and `ended()` to call
   * once it ended without error, which returns how far that moved the written prefix (0 while a
   * write before it is still in flight; then that one's `ended()` counts both).
   */
  begin(n: number): { at: number; ended(): number } {
    const at = this.submitted;
    this.submitted += n;
    const mine = { end: this.submitted, ended: false };
    this.pending.push(mine);
    return {
      at,
      ended: () => {
        mine.ended = true;
        const before = this.written;
        const pending = this.pending;
        while (pending.length > 0 && (pending[0] as { ended: boolean }).ended)
          this.written = (pending.shift() as { end: number }).end;
        return this.written - before;
      },
    };
  }
}

/** LineLog: the output lines of a child (process or thread), and waits for one of them. */

/** How a child process ended. */
export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * The lines a child printed, in order, and the callers waiting for a line with a given prefix.
 * One for each {@link SuiteChild}, whether it is a process (its stdout) or a thread (its `{ line }`
 * messages).
 */
export class LineLog {
  readonly lines: string[] = [];
  readonly #waiters: { prefix: string; resolve: (line: string) => void }[] = [];

  /**
   * @param what names the child in failure messages (`child 123 (server.ts)`, `thread 4`)
   * @param exited resolves when the child has ended: a wait still pending then rejects
   * @param stderr what the child wrote on stderr so far, for failure messages
   */
  constructor(
    private readonly what: string,
    private readonly exited: Promise<ChildExit>,
    private readonly stderr: () => string,
  ) {}

  /** A line arrived: kept, and handed to every waiter whose prefix it starts with. */
  push(line: string): void {
    this.lines.push(line);
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i];
      if (w !== undefined && line.startsWith(w.prefix)) {
        this.#waiters.splice(i, 1);
        w.resolve(line);
      }
    }
  }

  /**
   * Resolves with the first line starting with `prefix` (past or future); rejects after
   * `timeoutMs`, or when the child ends first.
   */
  waitFor(prefix: string, timeoutMs: number): Promise<string> {
    const seen = this.lines.find((l) => l.startsWith(prefix));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<string>((resolve, reject) => {
      const entry = {
        prefix,
        resolve: (line: string) => {
          clearTimeout(timer);
          resolve(line);
        },
      };
      const fail = (why: string): void => {
        if (!this.#waiters.includes(entry)) return;
        this.#waiters.splice(this.#waiters.indexOf(entry), 1);
        clearTimeout(timer);
        reject(new Error(`${this.what} ${why}; stderr: ${this.stderr()}`));
      };
      const timer = setTimeout(
        () =>
          fail(
            `printed no "${prefix}" line within ${timeoutMs} ms; stdout: ${this.lines.join(" | ")}`,
          ),
        timeoutMs,
      );
      timer.unref();
      this.#waiters.push(entry);
      void this.exited.then((e) =>
        fail(`exited (code ${e.code}, signal ${e.signal}) before printing "${prefix}"`),
      );
    });
  }
}

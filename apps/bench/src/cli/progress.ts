/**
 * Progress on stderr: a redrawn bar on a TTY, one plain line per step otherwise (CI logs).
 */
export class Progress {
  #done = 0;
  readonly #start = Date.now();
  readonly #tty: boolean;
  constructor(
    readonly total: number,
    readonly stream: NodeJS.WriteStream = process.stderr,
  ) {
    this.#tty = stream.isTTY === true;
  }

  /** Marks a step as started (TTY: redraws the bar with its label). */
  start(label: string): void {
    if (this.#tty) this.#draw(label);
  }

  /** Marks a step as finished, with a short outcome (`p50 53.1 µs`). */
  finish(label: string, outcome: string): void {
    this.#done++;
    if (this.#tty) this.#draw(label);
    else this.stream.write(`[${this.#done}/${this.total}] ${label}  ${outcome}\n`);
  }

  /** Clears the bar. */
  end(): void {
    if (this.#tty) this.stream.write("\r\x1b[2K");
  }

  #draw(label: string): void {
    const width = 30;
    const frac = this.total === 0 ? 1 : this.#done / this.total;
    const filled = Math.round(frac * width);
    const elapsed = (Date.now() - this.#start) / 1000;
    const eta =
      this.#done === 0 ? "?" : `${Math.round((elapsed / this.#done) * (this.total - this.#done))}s`;
    const cols = this.stream.columns ?? 100;
    const text = `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${this.#done}/${this.total} eta ${eta}  ${label}`;
    this.stream.write(`\r\x1b[2K${text.slice(0, cols - 1)}`);
  }
}

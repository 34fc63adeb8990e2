/** Options of {@link createProgressBar}. */
export interface ProgressBarOptions {
  /** Where the bar goes (stderr in the CLI). A TTY gets one redrawn line, anything else a line per 10 %. */
  stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Text before the bar, e.g. `put big.iso`. */
  label: string;
  /** Least time between two redraws on a TTY, in ms (default 100). */
  intervalMs?: number;
}

/** A text progress bar for byte transfers. */
export interface ProgressBar {
  /** Records progress; redraws when due. `totalBytes` −1 means unknown (no bar, bytes only). */
  update(doneBytes: number, totalBytes: number): void;
  /** Draws the final state and ends the line. */
  finish(): void;
}

/** `1.5 MiB`, `512 B`: binary units, one decimal. */
export function formatBytes(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** A progress bar writing to `options.stream`. */
export function createProgressBar(options: ProgressBarOptions): ProgressBar {
  const { stream, label } = options;
  const tty = stream.isTTY === true;
  const intervalMs = options.intervalMs ?? 100;
  const startedAt = Date.now();
  let lastDrawAt = 0;
  let lastDecile = -1;
  let done = 0;
  let total = -1;

  function line(): string {
    const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
    const rate = `${formatBytes(Math.round(done / seconds))}/s`;
    if (total < 0) return `${label} ${formatBytes(done)} ${rate}`;
    const fraction = total === 0 ? 1 : Math.min(done / total, 1);
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - label.length - 45));
    const filled = Math.round(fraction * width);
    const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
    const pct = `${(fraction * 100).toFixed(0)}%`.padStart(4);
    return `${label} [${bar}] ${pct} ${formatBytes(done)}/${formatBytes(total)} ${rate}`;
  }

  return {
    update(doneBytes, totalBytes) {
      done = doneBytes;
      total = totalBytes;
      if (tty) {
        const now = Date.now();
        if (now - lastDrawAt < intervalMs) return;
        lastDrawAt = now;
        stream.write(`\r${line()}\x1b[K`);
        return;
      }
      const decile = total > 0 ? Math.floor((done / total) * 10) : -1;
      if (decile > lastDecile && decile < 10) {
        lastDecile = decile;
        stream.write(`${line()}\n`);
      }
    },
    finish() {
      stream.write(tty ? `\r${line()}\x1b[K\n` : `${line()}\n`);
    },
  };
}

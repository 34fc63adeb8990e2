import { spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** Names a headless Chromium is found under on PATH (Debian's package installs `chromium`). */
const NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/**
 * The Chromium binary to drive: `$NEARWIRE_CHROMIUM` when set, else the first of
 * {@link NAMES} on PATH; undefined when there is none.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = env.NEARWIRE_CHROMIUM
    ? [env.NEARWIRE_CHROMIUM]
    : (env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .flatMap((dir) => NAMES.map((n) => join(dir, n)));
  return candidates.find((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** What a headless run printed: stdout (the DOM for `--dump-dom`) and Chromium's log. */
export interface ChromiumOutput {
  stdout: string;
  /** Chromium's log (`--enable-logging=stderr`): page console messages appear as `CONSOLE` lines. */
  stderr: string;
}

/**
 * Runs headless Chromium once on a local file, with a throw-away profile and no sandbox (the
 * bench may run as root), and kills it after `timeoutMs`. Rejects when it exits non-zero.
 */
export function runChromium(
  bin: string,
  file: string,
  args: readonly string[],
  timeoutMs = 30_000,
): Promise<ChromiumOutput> {
  const profile = mkdtempSync(join(tmpdir(), "nwb-chromium-"));
  const argv = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-extensions",
    "--hide-scrollbars",
    `--user-data-dir=${profile}`,
    "--enable-logging=stderr",
    "--v=0",
    ...args,
    pathToFileURL(resolve(file)).href,
  ];
  return new Promise<ChromiumOutput>((done, fail) => {
    const child = spawn(bin, argv, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", fail);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      rmSync(profile, { recursive: true, force: true });
      if (code === 0) done({ stdout, stderr });
      else
        fail(
          new Error(
            `${bin} exited with ${code ?? signal}${signal === "SIGKILL" ? ` (killed after ${timeoutMs} ms)` : ""}: ${stderr.slice(-2000)}`,
          ),
        );
    });
  });
}

/** The page's DOM after its scripts ran (`--dump-dom`), and Chromium's log. */
export function dumpDom(bin: string, file: string): Promise<ChromiumOutput> {
  return runChromium(bin, file, ["--dump-dom"]);
}

/** How {@link screenshot} frames and waits for a page. */
export interface ScreenshotOptions {
  /** Window width in CSS pixels, and so the PNG's. Default 1400. */
  width?: number;
  /** Window height in CSS pixels, and so the PNG's. Default 1700. */
  height?: number;
  /**
   * Virtual time (ms) the page's timers may run before the shot, for a page that shows itself
   * from a script (TypeDoc hides the body until its script ran). Default: none.
   */
  virtualTimeBudgetMs?: number;
  /** Kills Chromium after this long (ms). Default 30,000. */
  timeoutMs?: number;
}

/** Writes a PNG of the page's top `width` × `height` CSS pixels. */
export async function screenshot(
  bin: string,
  file: string,
  png: string,
  options: ScreenshotOptions = {},
): Promise<void> {
  const { width = 1400, height = 1700, virtualTimeBudgetMs, timeoutMs } = options;
  await runChromium(
    bin,
    file,
    [
      `--window-size=${width},${height}`,
      ...(virtualTimeBudgetMs === undefined
        ? []
        : [`--virtual-time-budget=${virtualTimeBudgetMs}`]),
      `--screenshot=${resolve(png)}`,
    ],
    timeoutMs,
  );
}

/** Page console messages in a Chromium log (one per `CONSOLE` line). */
export function consoleLines(log: string): string[] {
  return log.split("\n").filter((l) => /:CONSOLE[:(]/.test(l));
}

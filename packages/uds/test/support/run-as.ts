import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** uid and gid of `nobody` / `nogroup` on Debian. */
export const NOBODY = 65534;

/**
 * Runs `fixtures/peer-client.ts` in a child process (as `uid`/`gid` when given; the test runs as
 * root) and returns the JSON line it prints. Rejects if it exits without one or after 15 s.
 */
export function runPeerClient(
  args: string[],
  options: { uid?: number; gid?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<Record<string, unknown>> {
  const file = fileURLToPath(new URL("../fixtures/peer-client.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], {
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    stdio: ["ignore", "pipe", "pipe"],
    // No tsx cache for another uid: it would leave a directory of that user in /tmp.
    env: {
      ...process.env,
      ...(options.uid === undefined ? {} : { TSX_DISABLE_CACHE: "1" }),
      ...options.env,
    },
    ...(options.uid === undefined ? {} : { uid: options.uid }),
    ...(options.gid === undefined ? {} : { gid: options.gid }),
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, "SIGKILL");
    }, 15_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line === undefined) reject(new Error(`peer-client exited ${code}: ${err}`));
      else resolve(JSON.parse(line) as Record<string, unknown>);
    });
  });
}

import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Build, workerCapabilities } from "../measure/runner.js";

/**
 * The base side of the A/B gate (`--ci`): the parent commit checked out in a temporary git
 * worktree, installed and built there, so that its own `apps/bench/dist/worker.js` runs the
 * base half of every case in the same run as the current tree.
 */

/** A built base tree. */
export interface BaseTree {
  /** What was asked for (`HEAD~1`, a SHA, or a directory). */
  rev: string;
  /** The commit, when it came from git. */
  sha: string | undefined;
  root: string;
  build: Build;
  /** Removes the worktree (a no-op for `--base-dir`). */
  dispose(): void;
}

/** Why there is no base tree (the gate then says so and uses the committed baseline only). */
export interface NoBaseTree {
  unavailable: string;
}

const PNPM = ["-y", "pnpm@12.4.2"];
const STEP_TIMEOUT_MS = 15 * 60_000;

/** An already-built tree at `dir` (`--base-dir`): nothing is checked out or built. */
export function baseTreeAt(dir: string): BaseTree | NoBaseTree {
  const workerFile = join(dir, "apps", "bench", "dist", "worker.js");
  if (!existsSync(workerFile)) return { unavailable: `${workerFile} does not exist (not built?)` };
  return {
    rev: dir,
    sha: undefined,
    root: dir,
    build: {
      label: "base",
      workerFile,
      nodeArgs: [],
      clientAwaitsAddress: workerCapabilities(workerFile).awaitAddress === true,
    },
    dispose() {},
  };
}

/**
 * The base revision when none is given: `HEAD` when tracked files have uncommitted changes
 * (the change under test is the working tree), else `HEAD~1` (the change is the last commit).
 * Files a build step rewrites are not a change under test: CI's `docs:api` retakes the
 * committed screenshots before the gate runs, and must not turn the gate into HEAD ÷ HEAD.
 */
export function defaultBaseRev(repoRoot: string): string {
  const status = git(repoRoot, [
    "status",
    "--porcelain",
    "--untracked-files=no",
    "--",
    ".",
    ":(exclude)docs/screenshots",
  ]);
  return status.ok && status.out.trim() !== "" ? "HEAD" : "HEAD~1";
}

/** Checks out `rev` of the repository at `repoRoot` into a temporary worktree and builds it. */
export function prepareBaseTree(
  repoRoot: string,
  rev: string,
  log: (line: string) => void,
): BaseTree | NoBaseTree {
  const sha = git(repoRoot, ["rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
  if (!sha.ok) return { unavailable: `no commit ${rev} in ${repoRoot} (a shallow clone?)` };
  const commit = sha.out.trim();
  const dir = mkdtempSync(join(tmpdir(), "nearwire-bench-base-"));
  const added = git(repoRoot, ["worktree", "add", "--detach", "--force", dir, commit]);
  if (!added.ok) {
    rmSync(dir, { recursive: true, force: true });
    return { unavailable: `git worktree add failed: ${added.out.trim()}` };
  }
  const dispose = () => {
    git(repoRoot, ["worktree", "remove", "--force", dir]);
    rmSync(dir, { recursive: true, force: true });
    git(repoRoot, ["worktree", "prune"]);
  };
  const logFile = join(dir, ".nearwire-bench-base.log");
  for (const [what, args] of [
    ["install", [...PNPM, "install", "--frozen-lockfile", "--prefer-offline"]],
    // Only the bench and what it depends on (turbo's `pkg...` filter): the base side needs no
    // other package, and CI's time is bounded.
    ["build", [...PNPM, "exec", "turbo", "run", "build", "--filter=nearwire-bench..."]],
  ] as const) {
    log(`base ${rev} (${commit.slice(0, 12)}): ${what}…`);
    const fd = openSync(logFile, "a");
    const r = spawnSync("npx", args, {
      cwd: dir,
      stdio: ["ignore", fd, fd],
      timeout: STEP_TIMEOUT_MS,
      env: { ...process.env, CI: "true", TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" },
    });
    closeSync(fd);
    if (r.status !== 0) {
      const tail = readFileSync(logFile, "utf8").trim().split("\n").slice(-5).join(" | ");
      dispose();
      return { unavailable: `base ${what} failed (exit ${r.status ?? r.signal}): ${tail}` };
    }
  }
  const tree = baseTreeAt(dir);
  if ("unavailable" in tree) {
    dispose();
    return tree;
  }
  return { ...tree, rev, sha: commit, dispose };
}

/** The root of the git repository holding `dir`, or undefined. */
export function repoRootOf(dir: string): string | undefined {
  const r = git(dir, ["rev-parse", "--show-toplevel"]);
  return r.ok ? r.out.trim() : undefined;
}

function git(cwd: string, args: string[]): { ok: boolean; out: string } {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  return { ok: r.status === 0, out: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

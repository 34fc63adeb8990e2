import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { baseTreeAt, defaultBaseRev } from "../src/ci/base-tree.js";
import { CURRENT_BUILD, workerCapabilities } from "../src/measure/runner.js";

test("the gate's default base: HEAD~1 unless source changed; retaken screenshots do not count", () => {
  const repo = mkdtempSync(join(tmpdir(), "nearwire-base-rev-"));
  try {
    const git = (...args: string[]) =>
      execFileSync("git", ["-C", repo, "-c", "user.email=t@t", "-c", "user.name=t", ...args]);
    git("init", "-q");
    mkdirSync(join(repo, "docs", "screenshots"), { recursive: true });
    writeFileSync(join(repo, "docs", "screenshots", "api-index.png"), "png 1");
    writeFileSync(join(repo, "index.ts"), "export {};\n");
    git("add", ".");
    git("commit", "-qm", "one");
    assert.equal(defaultBaseRev(repo), "HEAD~1", "a clean tree: the change is the last commit");
    writeFileSync(join(repo, "docs", "screenshots", "api-index.png"), "png 2");
    assert.equal(defaultBaseRev(repo), "HEAD~1", "docs:api retook a screenshot");
    writeFileSync(join(repo, "index.ts"), "export const x = 1;\n");
    assert.equal(defaultBaseRev(repo), "HEAD", "the working tree is the change under test");
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test("a base tree's worker: early client start only when its capabilities role says so", () => {
  const dir = mkdtempSync(join(tmpdir(), "nearwire-base-worker-"));
  try {
    // This tree's worker knows the role; a worker from before it throws "unknown worker role".
    const here = workerCapabilities(CURRENT_BUILD.workerFile, CURRENT_BUILD.nodeArgs);
    assert.deepEqual(here, { awaitAddress: true });
    const old = join(dir, "worker.js");
    writeFileSync(old, 'throw new Error("unknown worker role " + process.argv[2]);\n');
    assert.deepEqual(workerCapabilities(old), {});
    const tree = join(dir, "tree");
    mkdirSync(join(tree, "apps", "bench", "dist"), { recursive: true });
    writeFileSync(join(tree, "apps", "bench", "dist", "worker.js"), "process.exit(1);\n");
    const base = baseTreeAt(tree);
    assert.ok("build" in base);
    assert.equal(base.build.clientAwaitsAddress, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

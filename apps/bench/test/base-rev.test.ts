import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { defaultBaseRev } from "../src/ci/base-tree.js";

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

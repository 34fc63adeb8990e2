import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { needsTsLoader, spawnChild } from "../src/child-process.js";
import { assertBuilt, createTmpResources } from "../src/index.js";

describe("children of the suites: the TypeScript loader only where needed", () => {
  it("needsTsLoader: any .ts, .mts or .cts among the file and its modules", () => {
    assert.equal(needsTsLoader("/x/server-main.js", ["file:///p/f.js", undefined]), false);
    assert.equal(needsTsLoader("/x/server-main.js", ["file:///p/f.mjs"]), false);
    assert.equal(needsTsLoader("/x/server-main.ts", ["file:///p/f.js"]), true);
    for (const ext of ["ts", "mts", "cts"])
      assert.equal(
        needsTsLoader("/x/server-main.js", ["file:///p/f.js", `file:///p/c.${ext}`]),
        true,
      );
    assert.equal(needsTsLoader("/x/server-main.js", ["file:///p/tsconfig.json"]), false);
  });

  it("a child importing only JavaScript runs without --import tsx; with a .ts module, with it", async () => {
    const tmp = createTmpResources();
    const dir = mkdtempSync(join(tmpdir(), "nwc-loader-"));
    try {
      const main = join(dir, "print-argv.mjs");
      writeFileSync(main, "console.log('ARGV ' + JSON.stringify(process.execArgv));\n");
      const plain = spawnChild(main, [], tmp, ["file:///p/factory.js", undefined]);
      assert.deepEqual(JSON.parse((await plain.waitForLine("ARGV ", 10_000)).slice(5)), []);
      assert.deepEqual(await plain.exited, { code: 0, signal: null });
      const ts = spawnChild(main, [], tmp, ["file:///p/factory.ts"]);
      assert.deepEqual(JSON.parse((await ts.waitForLine("ARGV ", 10_000)).slice(5)), [
        "--import",
        "tsx",
      ]);
      assert.deepEqual(await ts.exited, { code: 0, signal: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      assert.deepEqual(await tmp.cleanup(), []);
    }
  });
});

describe("assertBuilt", () => {
  function fakePackage(): { root: string; src: string; dist: string } {
    const root = mkdtempSync(join(tmpdir(), "nwc-built-"));
    mkdirSync(join(root, "src", "inner"), { recursive: true });
    mkdirSync(join(root, "dist", "inner"), { recursive: true });
    const src = join(root, "src", "inner", "a.ts");
    const dist = join(root, "dist", "inner", "a.js");
    writeFileSync(src, "export const a = 1;\n");
    writeFileSync(dist, "export const a = 1;\n");
    return { root, src, dist };
  }
  const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

  it("passes when dist/ is newer than every source, and takes the root as a URL or a path", () => {
    const p = fakePackage();
    try {
      at(p.src, 1_000_000);
      at(p.dist, 1_000_100);
      assertBuilt(p.root);
      assertBuilt(new URL(`file://${p.root}/`));
    } finally {
      rmSync(p.root, { recursive: true, force: true });
    }
  });

  it("throws naming the source file newer than the build (a nested one), and on a missing dist/", () => {
    const p = fakePackage();
    try {
      at(p.dist, 1_000_000);
      at(p.src, 1_000_100);
      assert.throws(
        () => assertBuilt(p.root),
        (err: Error) => err.message.includes(p.src) && err.message.includes("pnpm build"),
      );
      rmSync(join(p.root, "dist"), { recursive: true });
      assert.throws(
        () => assertBuilt(p.root),
        (err: Error) => err.message.includes("no dist/"),
      );
    } finally {
      rmSync(p.root, { recursive: true, force: true });
    }
  });
});

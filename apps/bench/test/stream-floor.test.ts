import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const tool = fileURLToPath(new URL("../src/measure/stream-floor.ts", import.meta.url));

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", tool, ...args],
      { timeout: 120_000 },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const floorDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith("nearwire-floor-"));

test("stream-floor measures every variant over uds between two processes and cleans up", async () => {
  const before = floorDirs();
  const { code, stdout, stderr } = await run([
    "--transport",
    "uds",
    "--warmup",
    "0.05",
    "--seconds",
    "0.1",
    "--rounds",
    "1",
  ]);
  assert.equal(code, 0, stderr);
  const rows = stdout
    .split("\n")
    .filter((l) => l.startsWith("| uds |"))
    .map((l) => l.split("|").map((c) => c.trim()));
  assert.deepEqual(
    rows.map((r) => r[2]),
    ["channel", "generator", "for-await", "both", "batched", "rpc"],
  );
  for (const r of rows) {
    const rate = Number((r[3] as string).replace(" M", ""));
    assert.ok(rate > 0, `${r[2]} measured ${r[3]}`);
  }
  assert.equal(rows[0]?.[4], "1.00");
  assert.deepEqual(floorDirs(), before, "every socket directory is removed");
});

test("stream-floor refuses an unknown transport, an empty window and an unknown option (exit 2, usage)", async () => {
  const bad = await run(["--transport", "tcp"]);
  assert.notEqual(bad.code, 0);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--transport tcp: one of uds,shm-ring-spin/);
  assert.match(bad.stderr, /^usage: stream-floor/m);
  assert.doesNotMatch(bad.stderr, /\n\s+at /, "a usage error prints no stack trace");
  const empty = await run(["--seconds", "0"]);
  assert.notEqual(empty.code, 0);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /--seconds > 0/);
  const unknown = await run(["--secs", "1"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /--secs/);
  assert.equal(bad.stdout + empty.stdout + unknown.stdout, "", "nothing is measured");
});

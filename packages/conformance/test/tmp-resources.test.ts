import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { createTmpResources, MAX_SOCKET_PATH_BYTES, readKnownFailures } from "../src/index.js";

describe("tmp resources", () => {
  it("hands out distinct short socket paths, abstract names and TCP addresses", async () => {
    const tmp = createTmpResources();
    const paths = [tmp.socketPath(), tmp.socketPath()];
    assert.notEqual(paths[0], paths[1]);
    for (const p of paths)
      assert.ok(Buffer.byteLength(p) <= MAX_SOCKET_PATH_BYTES && p.startsWith(tmp.dir));
    assert.match(tmp.abstractName(), /^unix-abstract:nwc-\d+-[0-9a-f]+-\d+$/);
    assert.match(await tmp.tcpAddress(), /^tcp:127\.0\.0\.1:\d+$/);
    assert.deepEqual(await tmp.cleanup(), []);
  });

  it("cleanup reports a file left behind and a live child, and kills that child", async () => {
    const tmp = createTmpResources();
    const path = tmp.socketPath();
    writeFileSync(path, "");
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], {
      stdio: "ignore",
    });
    tmp.track(child);
    const leaks = await tmp.cleanup();
    assert.equal(leaks.length, 2, leaks.join("; "));
    assert.ok(leaks.some((l) => l.includes(String(child.pid))));
    assert.ok(leaks.some((l) => l.includes(path)));
    assert.equal(child.signalCode, "SIGKILL");
  });
});

describe("known failures file", () => {
  it("parses ids and reasons, and rejects an entry without a reason", async () => {
    const tmp = createTmpResources();
    const file = `${tmp.dir}/kf.txt`;
    writeFileSync(file, "# comment\n\nlimits/a b c # not enforced yet\n");
    assert.deepEqual([...readKnownFailures(file)], [["limits/a b c", "not enforced yet"]]);
    writeFileSync(file, "limits/a b c\n");
    assert.throws(() => readKnownFailures(file), /no reason/);
    await tmp.cleanup();
  });
});

// Every ```ts block of the README runs as written (socket paths moved into a temporary
// directory): the greeter and the health check print their replies and exit; the reflection
// server serves until SIGTERM, then exits 0 with its socket file removed.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { tempDir } from "./support/servers.js";

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] as string);
const shellBlocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);

/** Writes `code` next to the tests (so `@nearwire/core` resolves), paths moved into `dir`. */
function materialize(code: string, dir: string, tag: string): string {
  const file = fileURLToPath(new URL(`./readme-${tag}-${process.pid}.ts`, import.meta.url));
  writeFileSync(
    file,
    code
      .replace('"@nearwire/grpc-uds"', '"../src/index.js"')
      .replace(/"(unix:)?\/tmp\/([\w.-]+\.sock)"/g, (_m, scheme: string | undefined, name) =>
        JSON.stringify(`${scheme ?? ""}${dir}/${name}`),
      ),
  );
  return file;
}

function runToEnd(code: string, tag: string): string {
  const tmp = tempDir();
  const file = materialize(code, tmp.dir, tag);
  try {
    const run = spawnSync(process.execPath, ["--import", "tsx", file], {
      encoding: "utf8",
      timeout: 30_000,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(readdirSync(tmp.dir), [], "no socket file left");
    return run.stdout.trim();
  } finally {
    rmSync(file, { force: true });
    tmp.cleanup();
  }
}

describe("README examples", () => {
  it("has five", () => assert.equal(blocks.length, 5));

  it("the greeter prints the reply and exits", () => {
    assert.equal(runToEnd(blocks[0] ?? "", "greeter"), "{ text: 'hi there' }");
  });

  it("the reconnecting client outlives a server restart", () => {
    assert.equal(runToEnd(blocks[4] ?? "", "reconnect"), "hi there\ntrue\nhello again");
  });

  it("the health check prints SERVING and exits (await using)", () => {
    assert.equal(runToEnd(blocks[1] ?? "", "health"), "{ status: 1 }");
  });

  it("the reflection server serves until SIGTERM, then removes its socket file", async () => {
    const tmp = tempDir();
    const file = materialize(blocks[2] ?? "", tmp.dir, "reflection");
    const child = spawn(process.execPath, ["--import", "tsx", file], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise<number | null>((r) => child.once("exit", (c) => r(c)));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (d: Buffer) => d.toString().includes("serving on") && resolve());
        child.once("exit", (c) => reject(new Error(`exited with ${c}`)));
      });
      assert.ok(existsSync(`${tmp.dir}/geo.sock`));
      child.kill("SIGTERM");
      assert.equal(await exited, 0);
      assert.equal(existsSync(`${tmp.dir}/geo.sock`), false, "socket file removed");
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      rmSync(file, { force: true });
      tmp.cleanup();
    }
  });

  it("the TLS example: the README's openssl lines make the certificates, mTLS shows the subject", () => {
    const tmp = tempDir();
    try {
      const make = spawnSync(
        "bash",
        ["-e", "-c", (shellBlocks[0] ?? "").replaceAll("/tmp/nearwire-tls", tmp.dir)],
        {
          encoding: "utf8",
          timeout: 30_000,
        },
      );
      assert.equal(make.status, 0, make.stderr);
      const code = (blocks[3] ?? "").replace("/tmp/nearwire-tls/", `${tmp.dir}/`);
      assert.equal(runToEnd(code, "tls"), "{ subject: 'O=acme, CN=billing-worker' }");
    } finally {
      tmp.cleanup();
    }
  });
});

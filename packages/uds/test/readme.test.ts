import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8");
const blocks = [...readme.matchAll(/```ts( \S+)?\n([\s\S]*?)```/g)].map((m) => m[2] as string);
const src = fileURLToPath(new URL("../src/index.ts", import.meta.url));

/** Writes a README block into a temp dir inside the package (so its node_modules apply). */
function materialize(code: string): { file: string; dir: string } {
  const dir = mkdtempSync(fileURLToPath(new URL("../.readme-", import.meta.url)));
  const file = join(dir, "example.ts");
  writeFileSync(file, code.replace('from "@nearwire/uds"', `from ${JSON.stringify(src)}`));
  return { file, dir };
}

describe("README examples", () => {
  it("greeter: `serve` in one process, `call` from another", async () => {
    const { file, dir } = materialize(blocks[0] ?? "");
    const env = { ...process.env, GREETER_ADDRESS: join(dir, "greeter.sock") };
    const server = spawn(process.execPath, ["--import", "tsx", file, "serve"], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        server.stdout.on("data", (d: Buffer) => d.toString().includes("serving on") && resolve());
        server.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
      });
      const out = execFileSync(process.execPath, ["--import", "tsx", file, "call"], {
        env,
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.equal(out.trim(), "hello, Ada");
    } finally {
      const exited = new Promise((r) => server.once("exit", r));
      server.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("channel layer: prints the echo", () => {
    const { file, dir } = materialize(blocks[1] ?? "");
    try {
      const out = execFileSync(process.execPath, ["--import", "tsx", file], {
        encoding: "utf8",
        timeout: 30_000,
      });
      assert.match(out, /echo: hello over uds max payload: 4194304/);
      assert.match(out, /closed: clean/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

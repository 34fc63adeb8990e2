import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sampleMessages } from "../src/index.js";

const example = fileURLToPath(new URL("../examples/swap-codec.ts", import.meta.url));
const run = promisify(execFile);

/** Runs the example's server in one process and its client in another, with `env`. */
async function callOnce(serverEnv: Record<string, string>, clientEnv: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "nw-swap-"));
  const address = join(dir, "s.sock");
  const server = spawn(process.execPath, ["--import", "tsx", example, "serve"], {
    env: { ...process.env, ...serverEnv, NEARWIRE_ADDRESS: address },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.stdout.on("data", (d: Buffer) => d.toString().includes("serving") && resolve());
      server.once("exit", (code) => reject(new Error(`server exited ${code}`)));
    });
    return await run(process.execPath, ["--import", "tsx", example, "call"], {
      env: { ...process.env, ...clientEnv, NEARWIRE_ADDRESS: address },
      timeout: 30_000,
    });
  } finally {
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const expected = {
  seq: sampleMessages.tick.seq + 1,
  symbolId: sampleMessages.tick.symbolId,
  seen: "yes",
};

describe("two services on one uds server, each with its own codec", () => {
  for (const [market, telemetry] of [
    ["raw", "json"],
    ["protobuf", "msgpack"],
    ["flatbuffers", "protobuf"],
  ] as const) {
    it(`MarketData=${market}, Telemetry=${telemetry}: same handlers, configuration only`, async () => {
      const env = { MARKET_CODEC: market, TELEMETRY_CODEC: telemetry };
      const { stdout } = await callOnce(env, env);
      assert.deepEqual(JSON.parse(stdout), expected);
    });
  }

  it("the codec really is per service: a client using another codec than the server fails with INVALID_ARGUMENT", async () => {
    await assert.rejects(
      callOnce(
        { MARKET_CODEC: "raw", TELEMETRY_CODEC: "json" },
        { MARKET_CODEC: "json", TELEMETRY_CODEC: "json" },
      ),
      (err: Error & { stderr?: string }) => {
        assert.match(err.stderr ?? "", /^call failed: INVALID_ARGUMENT: /m);
        return true;
      },
    );
  });
});

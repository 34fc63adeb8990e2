import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createProtobufCodec } from "@nearwire/codec-protobuf";
import {
  type Code,
  defineService,
  messageType,
  NearwireError,
  serverStreaming,
  unary,
} from "@nearwire/core";
import { parseAddress } from "@nearwire/socket";
import protobuf from "protobufjs";
import { createGrpcTransport, grpcTarget } from "../src/index.js";
import { tempDir } from "./support/servers.js";

const PROTO = fileURLToPath(new URL("./fixtures/interop.proto", import.meta.url));
const CLIENT = fileURLToPath(new URL("./fixtures/interop-client.py", import.meta.url));
const PYTHON = "/usr/bin/python3";
const INSTALL =
  "apt-get update && apt-get install -y python3-grpcio python3-protobuf protobuf-compiler " +
  "(or run packages/grpc-uds/scripts/install-interop-deps.sh)";

interface Point {
  x: number;
  y: number;
  label: string;
}
interface Sum {
  total: number;
  label: string;
  note: string;
}
const point = messageType<Point>("nearwire.interop.Point");
const sum = messageType<Sum>("nearwire.interop.Sum");
const geometry = defineService("nearwire.interop.Geometry", {
  Add: unary(point, sum),
  Range: serverStreaming(point, point),
  Fail: unary(point, sum),
});

/** Runs the Python client without blocking the event loop (the server is in this process). */
function runPython(
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(PYTHON, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

function missingDeps(): string | undefined {
  const py = spawnSync(PYTHON, ["-c", "import grpc, google.protobuf"], { encoding: "utf8" });
  if (py.status !== 0)
    return `${PYTHON} cannot import grpc/google.protobuf: ${py.stderr.trim().split("\n").pop()}`;
  const protoc = spawnSync("protoc", ["--version"], { encoding: "utf8" });
  if (protoc.status !== 0) return "protoc not found on PATH";
  return undefined;
}

describe("interop: a stock Python gRPC client calls a protobuf service from its .proto alone", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("python3-grpcio, python3-protobuf and protoc are installed", () => {
    const missing = missingDeps();
    assert.equal(missing, undefined, `${missing}. Install with: ${INSTALL}`);
  });

  // Not over unix-abstract: Node's libuv pads abstract names with NULs to the full 108-byte
  // sun_path, so a non-Node client asking for the bare name finds nothing (see README).
  for (const kind of ["path", "tcp"] as const) {
    it(`unary, server streaming, status + trailers, metadata over ${kind === "path" ? "unix:" : "TCP"}`, async (t) => {
      const missing = missingDeps();
      assert.equal(missing, undefined, `${missing}. Install with: ${INSTALL}`);
      execFileSync("protoc", [
        `--proto_path=${fileURLToPath(new URL("./fixtures", import.meta.url))}`,
        `--python_out=${tmp.dir}`,
        PROTO,
      ]);
      const codec = createProtobufCodec(protobuf.loadSync(PROTO));
      const server = createGrpcTransport({
        address: kind === "path" ? `unix:${tmp.dir}/interop.sock` : "127.0.0.1:0",
      }).createServer();
      server.addService(
        geometry,
        {
          Add: (p, ctx) => ({
            total: p.x + p.y,
            label: p.label,
            note: ctx.metadata["x-note"] ?? "",
          }),
          async *Range(p) {
            for (let i = 0; i < p.x; i++) yield { x: i, y: i, label: "" };
          },
          Fail(p) {
            throw new NearwireError(p.x as Code, p.label, { metadata: { "x-why": "because" } });
          },
        },
        { codec },
      );
      await server.listen();
      t.after(() => server.close({ graceMs: 100 }));
      const py = await runPython([CLIENT, grpcTarget(parseAddress(server.address)), tmp.dir]);
      assert.equal(py.status, 0, py.stderr);
      const out = JSON.parse(py.stdout) as {
        add: Sum;
        range: number[][];
        fail: { code: number; details: string; trailers: Record<string, string> };
      };
      assert.deepEqual(out.add, { total: 42, label: "py", note: "from-python" });
      assert.deepEqual(out.range, [
        [0, 0],
        [1, 1],
        [2, 2],
        [3, 3],
      ]);
      assert.equal(out.fail.code, 9);
      assert.equal(out.fail.details, "nope");
      assert.equal(out.fail.trailers["x-why"], "because");
    });
  }
});

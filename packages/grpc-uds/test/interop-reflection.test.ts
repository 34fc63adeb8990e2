import assert from "node:assert/strict";
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createProtobufCodec } from "@nearwire/codec-protobuf";
import {
  createHealthService,
  defineService,
  jsonCodec,
  messageType,
  serverStreaming,
  unary,
} from "@nearwire/core";
import { parseAddress } from "@nearwire/socket";
import protobuf from "protobufjs";
import { createGrpcTransport, grpcTarget } from "../src/index.js";
import { tempDir } from "./support/servers.js";

const FIXTURES = fileURLToPath(new URL("./fixtures", import.meta.url));
const PYTHON = "/usr/bin/python3";

const point = messageType<{ x: number; y: number; label: string }>("nearwire.interop.Point");
const sum = messageType<{ total: number; label: string; note: string }>("nearwire.interop.Sum");
const geometry = defineService("nearwire.interop.Geometry", {
  Add: unary(point, sum),
  Range: serverStreaming(point, point),
  Fail: unary(point, sum),
});
const Echo = messageType<{ text: string }>("demo.Echo");
const jsonService = defineService("demo.Greeter", { say: unary(Echo, Echo) });

describe("server reflection on grpc-uds (reflection: true)", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("a stock Python grpcio client lists the protobuf services and fetches their file over v1 and v1alpha", async (t) => {
    const py = spawnSync(PYTHON, ["-c", "import grpc, google.protobuf"], { encoding: "utf8" });
    assert.equal(py.status, 0, `python3-grpcio/python3-protobuf missing: ${py.stderr}`);
    execFileSync("protoc", [
      `--proto_path=${FIXTURES}`,
      `--python_out=${tmp.dir}`,
      `${FIXTURES}/reflection.proto`,
    ]);
    const codec = createProtobufCodec(protobuf.loadSync(`${FIXTURES}/interop.proto`));
    const server = createGrpcTransport({
      address: `unix:${tmp.dir}/reflection.sock`,
      reflection: true,
    }).createServer();
    server.addService(
      geometry,
      {
        Add: (p) => ({ total: p.x + p.y, label: p.label, note: "" }),
        async *Range(p) {
          yield p;
        },
        Fail: (p) => ({ total: 0, label: p.label, note: "" }),
      },
      { codec },
    );
    // Served and listed; described only when a schema exists (health: the built-in descriptor).
    server.addService(jsonService, { say: (r) => r }, { codec: jsonCodec });
    const health = createHealthService();
    server.addService(health.definition, health.impl, { codec: health.codec });
    await server.listen();
    t.after(() => server.close({ graceMs: 100 }));
    const target = grpcTarget(parseAddress(server.address));
    const file = {
      name: "nearwire_interop.proto",
      package: "nearwire.interop",
      messages: ["Point", "Sum"],
      services: {
        Geometry: [
          ["Add", ".nearwire.interop.Point", ".nearwire.interop.Sum", false],
          ["Range", ".nearwire.interop.Point", ".nearwire.interop.Point", true],
          ["Fail", ".nearwire.interop.Point", ".nearwire.interop.Sum", false],
        ],
      },
    };
    for (const version of ["grpc.reflection.v1", "grpc.reflection.v1alpha"]) {
      const client = `${FIXTURES}/reflection-client.py`;
      const args = [client, target, tmp.dir, version, "nearwire.interop.Geometry.Add"];
      const { stdout } = await promisify(execFile)(PYTHON, args, { timeout: 30_000 });
      assert.deepEqual(JSON.parse(stdout), {
        // Every service is listed, as grpc-go lists them; JSON has no schema to describe.
        services: [
          "demo.Greeter",
          "grpc.health.v1.Health",
          "grpc.reflection.v1.ServerReflection",
          "grpc.reflection.v1alpha.ServerReflection",
          "nearwire.interop.Geometry",
        ],
        by_symbol: [file],
        by_name: [file],
        missing: 5,
      });
    }
  });
});

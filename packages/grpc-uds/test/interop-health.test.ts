import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import {
  Code,
  createHealthService,
  defineService,
  jsonCodec,
  messageType,
  ServingStatus,
  unary,
} from "@nearwire/core";
import { parseAddress } from "@nearwire/socket";
import { createGrpcTransport, grpcTarget } from "../src/index.js";
import { tempDir } from "./support/servers.js";

const FIXTURES = fileURLToPath(new URL("./fixtures", import.meta.url));
const CLIENT = `${FIXTURES}/health-client.py`;
const PYTHON = "/usr/bin/python3";

const Echo = messageType<{ text: string }>("demo.Echo");
const greeter = defineService("demo.Greeter", { say: unary(Echo, Echo) });

describe("health: grpc.health.v1.Health on a grpc-uds server", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("a stock Python grpcio client: Check (probe), NOT_FOUND, Watch until the server closes", async (t) => {
    const py = spawnSync(PYTHON, ["-c", "import grpc, google.protobuf"], { encoding: "utf8" });
    assert.equal(py.status, 0, `python3-grpcio/python3-protobuf missing: ${py.stderr}`);
    execFileSync("protoc", [
      `--proto_path=${FIXTURES}`,
      `--python_out=${tmp.dir}`,
      `${FIXTURES}/health.proto`,
    ]);
    const health = createHealthService();
    health.setStatus(greeter.typeName, ServingStatus.SERVING);
    const server = createGrpcTransport({ address: `unix:${tmp.dir}/health.sock` }).createServer();
    server.addService(greeter, { say: (r) => r }, { codec: jsonCodec });
    server.addService(health.definition, health.impl, { codec: health.codec });
    await server.listen();
    t.after(() => server.close({ graceMs: 100 }));

    const child = spawn(
      PYTHON,
      [CLIENT, grpcTarget(parseAddress(server.address)), tmp.dir, greeter.typeName],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const kill = setTimeout(() => child.kill("SIGKILL"), 30_000);
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    let result: unknown;
    let buffer = "";
    let watched = 0;
    let closing: Promise<void> | undefined;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.startsWith("RESULT ")) result = JSON.parse(line.slice(7));
        if (!line.startsWith("WATCH ")) continue;
        watched++;
        if (watched === 1) health.setStatus(greeter.typeName, ServingStatus.NOT_SERVING);
        if (watched === 2) health.setStatus(greeter.typeName, ServingStatus.SERVING);
        if (watched === 3) closing = server.close({ graceMs: 10_000 });
      }
    });
    const status = await new Promise<number | null>((resolve) => child.once("close", resolve));
    clearTimeout(kill);
    assert.equal(status, 0, stderr);
    assert.deepEqual(result, {
      check: { "": "SERVING", [greeter.typeName]: "SERVING", "no.Such": "NOT_FOUND" },
      watch: ["SERVING", "NOT_SERVING", "SERVING", "NOT_SERVING"],
    });
    await closing;
  });

  it("the nearwire client over TCP: Check, NOT_FOUND, Watch sees NOT_SERVING on close", async () => {
    const transport = createGrpcTransport({ address: "tcp:127.0.0.1:0" });
    const health = createHealthService({ statuses: { "": ServingStatus.SERVING, a: 1 } });
    const server = transport.createServer();
    server.addService(health.definition, health.impl, { codec: health.codec });
    await server.listen();
    const connection = await transport.connect();
    const client = connection.client(health.definition, { codec: health.codec });
    assert.deepEqual(await client.Check({ service: "a" }), { status: ServingStatus.SERVING });
    await assert.rejects(client.Check({ service: "b" }), { code: Code.NotFound });
    const seen: number[] = [];
    let closing: Promise<void> | undefined;
    for await (const r of client.Watch({ service: "a" })) {
      seen.push(r.status);
      closing ??= server.close({ graceMs: 10_000 });
    }
    assert.deepEqual(seen, [ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
    await closing;
    await connection.close();
  });
});

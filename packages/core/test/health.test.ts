import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Code,
  createHealthService,
  createMemoryTransport,
  healthCodec,
  type MessageCodec,
  messageType,
  NearwireError,
  ServingStatus,
} from "../src/index.js";

const request = healthCodec.forType(messageType("grpc.health.v1.HealthCheckRequest"));
const response = healthCodec.forType(messageType("grpc.health.v1.HealthCheckResponse"));

function decodeCode(codec: MessageCodec<unknown>, bytes: number[]): unknown {
  try {
    codec.decode(Uint8Array.from(bytes));
  } catch (err) {
    assert.ok(err instanceof NearwireError);
    return [err.code, err.reason];
  }
  return "decoded";
}

describe("health codec: the grpc.health.v1 protobuf wire format", () => {
  it("encodes as protoc does (defaults omitted)", () => {
    assert.deepEqual([...request.encode({ service: "" })], []);
    assert.deepEqual([...request.encode({ service: "a.B" })], [0x0a, 3, 0x61, 0x2e, 0x42]);
    assert.deepEqual([...response.encode({ status: ServingStatus.UNKNOWN })], []);
    assert.deepEqual([...response.encode({ status: ServingStatus.NOT_SERVING })], [0x08, 2]);
    const long = "x".repeat(200);
    assert.deepEqual(request.decode(request.encode({ service: long })), { service: long });
  });

  it("decodes, skipping unknown fields; a negative enum keeps its int32 value", () => {
    // field 2 varint, field 3 fixed64, field 4 bytes, field 5 fixed32, then field 1.
    const bytes = [0x10, 0x96, 0x01, 0x19, 1, 2, 3, 4, 5, 6, 7, 8, 0x22, 1, 0, 0x2d, 1, 2, 3, 4];
    assert.deepEqual(request.decode(Uint8Array.from([...bytes, 0x0a, 1, 0x7a])), {
      service: "z",
    });
    assert.deepEqual(response.decode(Uint8Array.from([...bytes, 0x08, 3])), { status: 3 });
    const minusOne = [0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert.deepEqual(response.decode(Uint8Array.from(minusOne)), { status: -1 });
  });

  it("refuses truncated input, bad UTF-8 and group wire types with decode-failed", () => {
    const bad = [Code.InvalidArgument, "decode-failed"];
    assert.deepEqual(decodeCode(request, [0x0a, 5, 0x61]), bad);
    assert.deepEqual(decodeCode(request, [0x0a, 2, 0xc3, 0x28]), bad);
    assert.deepEqual(decodeCode(request, [0x0b]), bad);
    assert.deepEqual(decodeCode(response, [0x08, 0x80]), bad);
    assert.deepEqual(decodeCode(response, [0x08, ...Array(10).fill(0x80), 1]), bad);
  });
});

describe("health service over the memory transport", () => {
  it("Check per service, NOT_FOUND for an unknown one, Watch then NOT_SERVING on close", async () => {
    const transport = createMemoryTransport();
    const health = createHealthService();
    health.setStatus("demo.Greeter", ServingStatus.SERVING);
    const server = transport.createServer();
    server.addService(health.definition, health.impl, { codec: health.codec });
    await server.listen();
    const connection = await transport.connect();
    const client = connection.client(health.definition, { codec: health.codec });

    assert.deepEqual(await client.Check({ service: "" }), { status: ServingStatus.SERVING });
    assert.deepEqual(await client.Check({ service: "demo.Greeter" }), { status: 1 });
    await assert.rejects(client.Check({ service: "nope" }), { code: Code.NotFound });

    const seen: number[] = [];
    const unknown: number[] = [];
    const watching = (async () => {
      for await (const r of client.Watch({ service: "demo.Greeter" })) {
        seen.push(r.status);
        if (seen.length === 1) health.setStatus("demo.Greeter", ServingStatus.NOT_SERVING);
        if (seen.length === 2) health.setStatus("demo.Greeter", ServingStatus.SERVING);
        if (seen.length === 3) void server.close({ graceMs: 5000 });
      }
    })();
    const watchingUnknown = (async () => {
      for await (const r of client.Watch({ service: "later" })) unknown.push(r.status);
    })();
    await watching;
    await watchingUnknown;
    assert.deepEqual(seen, [1, 2, 1, 2]);
    assert.deepEqual(unknown, [ServingStatus.SERVICE_UNKNOWN]);
    assert.equal(health.status(""), ServingStatus.NOT_SERVING);
    health.setStatus("", ServingStatus.SERVING);
    assert.equal(health.status(""), ServingStatus.NOT_SERVING, "ignored after shutdown");
    await connection.close();
  });

  it("a cancelled Watch ends on the server side", async () => {
    const transport = createMemoryTransport();
    const health = createHealthService({ statuses: { a: ServingStatus.NOT_SERVING } });
    const server = transport.createServer();
    server.addService(health.definition, health.impl, { codec: health.codec });
    await server.listen();
    const connection = await transport.connect();
    const client = connection.client(health.definition, { codec: health.codec });
    await assert.rejects(client.Check({ service: "" }), { code: Code.NotFound });
    const controller = new AbortController();
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const r of client.Watch({ service: "a" }, { signal: controller.signal })) {
          seen.push(r.status);
          controller.abort();
        }
      })(),
      { code: Code.Canceled },
    );
    assert.deepEqual(seen, [ServingStatus.NOT_SERVING]);
    await connection.close();
    await server.close({ graceMs: 1000 });
  });
});

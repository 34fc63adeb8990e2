// core's hand-written health service (core has no protobuf dependency) against what
// servicesFromProto reads from grpc/health/v1/health.proto: the same definition, the same bytes,
// and either side of a call may use either one.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { servicesFromProto } from "@nearwire/codec-protobuf";
import {
  createHealthService,
  HealthDefinition,
  healthCodec,
  type MethodDefinition,
  messageType,
  ServingStatus,
} from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import { tempDir } from "./support/servers.js";

const proto = servicesFromProto(fileURLToPath(new URL("./fixtures/health.proto", import.meta.url)));
const fromProto = proto.service("grpc.health.v1.Health");

const shape = (methods: Record<string, MethodDefinition>) =>
  Object.entries(methods).map(([name, m]) => [name, m.kind, m.input.name, m.output.name]);

describe("grpc.health.v1.Health: core's definition is the one health.proto gives", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("the same name, methods, call kinds and message types", () => {
    assert.equal(fromProto.typeName, HealthDefinition.typeName);
    assert.deepEqual(shape(fromProto.methods), shape(HealthDefinition.methods));
  });

  it("healthCodec and the .proto's codec write the same bytes and read each other's", () => {
    const types = ["grpc.health.v1.HealthCheckRequest", "grpc.health.v1.HealthCheckResponse"];
    const samples: Record<string, object[]> = {
      [types[0] as string]: [{ service: "" }, { service: "demo.Greeter" }, { service: "ü/∆" }],
      [types[1] as string]: Object.values(ServingStatus).map((status) => ({ status })),
    };
    for (const typeName of types) {
      const type = messageType<object>(typeName);
      const hand = healthCodec.forType(type);
      const generated = proto.codec.forType(type);
      for (const value of samples[typeName] ?? []) {
        const bytes = hand.encode(value);
        assert.deepEqual(generated.encode(value), bytes, `${typeName} ${JSON.stringify(value)}`);
        assert.deepEqual(hand.decode(generated.encode(value)), value);
      }
    }
  });

  it("served from the .proto's definition and codec, a client of core's answers Check", async () => {
    const health = createHealthService({ statuses: { "": ServingStatus.SERVING } });
    const transport = createGrpcTransport({ address: `unix:${tmp.dir}/health.sock` });
    const server = transport.createServer();
    server.addService(fromProto, health.impl, { codec: proto.codec });
    await server.listen();
    try {
      await using conn = await transport.connect();
      const client = conn.client(HealthDefinition, { codec: healthCodec });
      assert.deepEqual(await client.Check({ service: "" }), { status: ServingStatus.SERVING });
    } finally {
      await server.close({ graceMs: 0 });
    }
  });
});

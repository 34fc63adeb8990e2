import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { Code, createMemoryTransport, NearwireError } from "@nearwire/core";
import protobuf from "protobufjs";
import { loadServices, servicesFromProto } from "../src/index.js";

const ROUTE = fileURLToPath(new URL("./fixtures/route.proto", import.meta.url));
const INCLUDE = fileURLToPath(new URL("./fixtures/include", import.meta.url));

function isCode(code: Code) {
  return (err: unknown) => err instanceof NearwireError && err.code === code;
}

test("servicesFromProto: every service of the file and its imports, with the .proto's call kinds", () => {
  const proto = servicesFromProto(ROUTE, { includeDirs: [INCLUDE] });
  assert.deepEqual(Object.keys(proto.services), ["RouteGuide", "Units"]);
  const guide = proto.service("RouteGuide");
  assert.equal(guide.typeName, "nearwire.route.v1.RouteGuide");
  assert.equal(proto.service("nearwire.route.v1.RouteGuide"), guide);
  assert.equal(proto.services.RouteGuide, guide);
  assert.deepEqual(
    Object.entries(guide.methods).map(([name, m]) => [name, m.kind, m.input.name, m.output.name]),
    [
      ["GetFeature", "unary", "nearwire.route.v1.Point", "nearwire.route.v1.Feature"],
      ["ListFeatures", "server_streaming", "nearwire.route.v1.Point", "nearwire.route.v1.Feature"],
      [
        "RecordRoute",
        "client_streaming",
        "nearwire.route.v1.Point",
        "nearwire.route.v1.RouteSummary",
      ],
      ["RouteChat", "bidi_streaming", "nearwire.route.v1.Point", "nearwire.route.v1.Point"],
    ],
  );
  assert.equal(proto.service("Units").typeName, "nearwire.units.v1.Units");
  assert.equal(proto.codec.name, "protobuf");
  assert.throws(() => proto.service("Nope"), isCode(Code.NotFound));
});

test("a loaded service runs every call kind through the codec returned beside it", async () => {
  const { services, codec } = servicesFromProto(ROUTE, { includeDirs: [INCLUDE] });
  const RouteGuide = services.RouteGuide;
  assert.ok(RouteGuide);
  interface Point {
    latitude: number;
    longitude: number;
  }
  // A loaded service's messages and call kinds are not known to TypeScript: a typed caller
  // states them (or generates them with @nearwire/protoc-gen).
  interface Feature {
    name: string;
    location: Point;
    size: { meters: number };
    seenAt: { seconds: number; nanos: number };
  }
  interface RouteGuideClient {
    GetFeature(p: Partial<Point>): Promise<Feature>;
    ListFeatures(p: Partial<Point>): AsyncIterable<Feature>;
    RecordRoute(ps: Partial<Point>[]): Promise<{ pointCount: number; distanceM: number }>;
    RouteChat(ps: Partial<Point>[]): AsyncIterable<Point>;
  }
  const transport = createMemoryTransport();
  await using server = transport.createServer().addService(
    RouteGuide,
    {
      GetFeature: (p: Point) => ({
        name: `at ${p.latitude},${p.longitude}`,
        location: p,
        size: { meters: 2.5 },
        seenAt: { seconds: 1_700_000_000, nanos: 5 },
      }),
      async *ListFeatures(p: Point) {
        for (let i = 0; i < p.latitude; i++) yield { name: `f${i}` };
      },
      async RecordRoute(points: AsyncIterable<Point>) {
        let pointCount = 0;
        for await (const _ of points) pointCount++;
        return { pointCount, distanceM: 2 ** 40 };
      },
      async *RouteChat(points: AsyncIterable<Point>) {
        for await (const p of points) yield { latitude: -p.latitude, longitude: p.longitude };
      },
    },
    { codec },
  );
  await server.listen();
  await using conn = await transport.connect();
  const client = conn.client(RouteGuide, { codec }) as unknown as RouteGuideClient;

  const feature = await client.GetFeature({ latitude: 1, longitude: 2 });
  assert.equal(feature.name, "at 1,2");
  assert.equal(feature.location.longitude, 2);
  assert.equal(feature.size.meters, 2.5);
  assert.equal(feature.seenAt.seconds, 1_700_000_000); // int64 as a number (codec default)

  const names: string[] = [];
  for await (const f of client.ListFeatures({ latitude: 3 })) names.push(f.name);
  assert.deepEqual(names, ["f0", "f1", "f2"]);

  const summary = await client.RecordRoute([{ latitude: 1 }, { latitude: 2 }]);
  assert.deepEqual([summary.pointCount, summary.distanceM], [2, 2 ** 40]);

  const back: number[] = [];
  for await (const p of client.RouteChat([{ latitude: 4 }, { latitude: 5 }])) back.push(p.latitude);
  assert.deepEqual(back, [-4, -5]);
});

test("loadServices reads a root built from JSON descriptors, or one package of it", () => {
  const { root } = protobuf.parse(`
    syntax = "proto3";
    package a.v1;
    message Ping { string text = 1; }
    service Greeter { rpc Say(Ping) returns (Ping); }
  `);
  protobuf.parse(
    `syntax = "proto3"; package b.v1; message Pong { int32 n = 1; }
     service Greeter { rpc Hear(stream Pong) returns (Pong); }`,
    root,
  );
  const fromJson = protobuf.Root.fromJSON(root.toJSON());
  assert.throws(() => loadServices(fromJson), isCode(Code.InvalidArgument));
  const a = loadServices(fromJson.lookup("a.v1") as protobuf.Namespace);
  assert.deepEqual(Object.keys(a.services), ["Greeter"]);
  assert.equal(a.service("Greeter").typeName, "a.v1.Greeter");
  assert.equal(a.root, fromJson);
  const b = loadServices(fromJson.lookup("b") as protobuf.Namespace).service("b.v1.Greeter");
  assert.equal(b.methods.Hear?.kind, "client_streaming");
  assert.equal(b.methods.Hear?.input.name, "b.v1.Pong");
});

test("a schema that cannot be read or resolved is INVALID_ARGUMENT", () => {
  // units.proto is only found through the include directory.
  assert.throws(() => servicesFromProto(ROUTE), isCode(Code.InvalidArgument));
  assert.throws(
    () => servicesFromProto(fileURLToPath(new URL("./fixtures/none.proto", import.meta.url))),
    isCode(Code.InvalidArgument),
  );
  const { root } = protobuf.parse(`
    syntax = "proto3";
    package c;
    service S { rpc M(Missing) returns (Missing); }
  `);
  assert.throws(() => loadServices(root), isCode(Code.InvalidArgument));
});

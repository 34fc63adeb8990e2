import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createProtobufCodec } from "@nearwire/codec-protobuf";
import {
  Code,
  type Codec,
  createHealthService,
  defineService,
  type HandlerContext,
  jsonCodec,
  messageType,
  NearwireError,
  unary,
} from "@nearwire/core";
import protobuf from "protobufjs";
import {
  healthFileDescriptor,
  reflectionV1alphaFileDescriptor,
  reflectionV1FileDescriptor,
} from "../src/server/reflection/builtin-descriptors.js";
import { DescriptorIndex } from "../src/server/reflection/descriptor-index.js";
import { ProtoReader, ProtoWriter } from "../src/server/reflection/proto-wire.js";
import {
  reflectionCodec,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "../src/server/reflection/reflection-codec.js";
import {
  type ReflectedService,
  reflectionServices,
} from "../src/server/reflection/reflection-service.js";

const PYTHON = "/usr/bin/python3";
const FIXTURES = fileURLToPath(new URL("./fixtures", import.meta.url));

interface FileDescriptorJson {
  name: string;
  package?: string;
  dependency?: string[];
}
const descriptorExt = createRequire(import.meta.url)("protobufjs/ext/descriptor") as {
  FileDescriptorProto: {
    decode(bytes: Uint8Array): protobuf.Message & FileDescriptorJson;
    encode(message: unknown): protobuf.Writer;
  };
};

/** The file names of encoded FileDescriptorProtos. */
function names(files: readonly Uint8Array[]): string[] {
  return files.map((f) => descriptorExt.FileDescriptorProto.decode(f).name);
}

// Two protobufjs files (one per package); shop uses common's types.
const root = new protobuf.Root();
protobuf.parse(
  `syntax = "proto3";
   package demo.common;
   message Money { int64 units = 1; enum Currency { EUR = 0; USD = 1; } Currency currency = 2; }`,
  root,
);
protobuf.parse(
  `syntax = "proto3";
   package demo.shop;
   import "common.proto";
   message Order { message Line { demo.common.Money price = 1; } repeated Line lines = 1; Kind kind = 2; }
   enum Kind { RETAIL = 0; WHOLESALE = 1; }
   service Shop { rpc Buy(Order) returns (demo.common.Money); }`,
  root,
);
root.resolveAll();
const protobufCodec = createProtobufCodec(root);

/**
 * protobufjs's descriptors leave `dependency` empty (it keeps no imports): this codec adds the
 * import a protoc-built descriptor has, `demo_shop.proto` → `demo_common.proto`.
 */
const shopCodec: Codec = {
  name: "protobuf",
  forType: (type) => protobufCodec.forType(type),
  fileDescriptorProtos: () =>
    (protobufCodec.fileDescriptorProtos?.() ?? []).map((bytes) => {
      const file = descriptorExt.FileDescriptorProto.decode(bytes);
      if (file.name !== "demo_shop.proto") return bytes;
      file.dependency = ["demo_common.proto"];
      return descriptorExt.FileDescriptorProto.encode(file).finish();
    }),
};

const Order = messageType<object>("demo.shop.Order");
const Money = messageType<object>("demo.common.Money");
const Shop = defineService("demo.shop.Shop", { Buy: unary(Order, Money) });
const Echo = messageType<{ text: string }>("demo.Echo");
const Greeter = defineService("demo.Greeter", { say: unary(Echo, Echo) });
const health = createHealthService();

const SERVICES: ReflectedService[] = [
  { typeName: Shop.typeName, codec: shopCodec },
  { typeName: Greeter.typeName, codec: jsonCodec },
  { typeName: health.definition.typeName, codec: health.codec },
];

const ctx: HandlerContext = {
  method: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
  metadata: {},
  deadline: undefined,
  signal: new AbortController().signal,
  trailers: {},
  responseHeaders: {},
  peer: { address: "test" },
};

type Info = (
  requests: AsyncIterable<ServerReflectionRequest>,
  ctx: HandlerContext,
) => AsyncIterable<ServerReflectionResponse>;

/** Sends `requests` on one ServerReflectionInfo stream of `impl`; returns every response. */
async function ask(
  impl: object,
  ...requests: ServerReflectionRequest[]
): Promise<ServerReflectionResponse[]> {
  async function* source() {
    yield* requests;
  }
  const out: ServerReflectionResponse[] = [];
  for await (const response of (impl as { ServerReflectionInfo: Info }).ServerReflectionInfo(
    source(),
    ctx,
  ))
    out.push(response);
  return out;
}

/** One request, one response, by value. */
async function ask1(
  impl: object,
  request: ServerReflectionRequest,
): Promise<ServerReflectionResponse> {
  const [response] = await ask(impl, request);
  assert.ok(response);
  return response;
}

/** The files of a `file_descriptor_response`, failing on any other answer. */
function filesOf(response: ServerReflectionResponse): Uint8Array[] {
  const oneof = response.messageResponse;
  assert.equal(oneof?.case, "fileDescriptorResponse");
  return oneof.value.fileDescriptorProto;
}

function symbol(value: string): ServerReflectionRequest {
  return { host: "", messageRequest: { case: "fileContainingSymbol", value } };
}

const SORTED_SERVICES = [
  "demo.Greeter",
  "demo.shop.Shop",
  "grpc.health.v1.Health",
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
];

describe("reflectionServices", () => {
  const [v1, v1alpha] = reflectionServices(SERVICES);
  assert.ok(v1 && v1alpha);

  it("defines v1 and v1alpha ServerReflectionInfo as bidi streams with the reflection codec", () => {
    for (const [service, pkg] of [
      [v1, "grpc.reflection.v1"],
      [v1alpha, "grpc.reflection.v1alpha"],
    ] as const) {
      assert.equal(service.definition.typeName, `${pkg}.ServerReflection`);
      assert.deepEqual(service.definition.methods, {
        ServerReflectionInfo: {
          kind: "bidi_streaming",
          input: { name: `${pkg}.ServerReflectionRequest` },
          output: { name: `${pkg}.ServerReflectionResponse` },
        },
      });
      assert.equal(service.codec, reflectionCodec);
    }
  });

  it("list_services: every service added, health and both reflection services, sorted", async () => {
    const request: ServerReflectionRequest = {
      host: "localhost:50051",
      messageRequest: { case: "listServices", value: "" },
    };
    for (const service of [v1, v1alpha]) {
      assert.deepEqual(await ask1(service.impl, request), {
        validHost: "localhost:50051",
        originalRequest: request,
        messageResponse: {
          case: "listServicesResponse",
          value: { service: SORTED_SERVICES.map((name) => ({ name })) },
        },
      });
    }
  });

  it("file_containing_symbol: a message, nested message, enum, service or method gives its file and its dependency", async () => {
    for (const name of [
      "demo.shop.Order",
      "demo.shop.Order.Line",
      "demo.shop.Order.lines",
      "demo.shop.Kind",
      "demo.shop.Shop",
      "demo.shop.Shop.Buy",
    ]) {
      const files = filesOf(await ask1(v1.impl, symbol(name)));
      assert.deepEqual(names(files), ["demo_shop.proto", "demo_common.proto"], name);
    }
    for (const name of ["demo.common.Money", "demo.common.Money.Currency"]) {
      const files = filesOf(await ask1(v1alpha.impl, symbol(name)));
      assert.deepEqual(names(files), ["demo_common.proto"], name);
    }
    const served = shopCodec.fileDescriptorProtos?.() ?? [];
    const [shop, common] = filesOf(await ask1(v1.impl, symbol("demo.shop.Shop")));
    assert.deepEqual(shop, served[1]);
    assert.deepEqual(common, served[0]);
  });

  it("file_containing_symbol: the health and reflection services describe themselves", async () => {
    assert.deepEqual(filesOf(await ask1(v1.impl, symbol("grpc.health.v1.Health.Watch"))), [
      healthFileDescriptor,
    ]);
    assert.deepEqual(
      filesOf(await ask1(v1.impl, symbol("grpc.reflection.v1.ServerReflectionResponse"))),
      [reflectionV1FileDescriptor],
    );
    assert.deepEqual(
      filesOf(await ask1(v1.impl, symbol("grpc.reflection.v1alpha.ServerReflection"))),
      [reflectionV1alphaFileDescriptor],
    );
  });

  it("file_by_filename gives the file and its dependencies", async () => {
    const byName = (value: string): ServerReflectionRequest => ({
      host: "",
      messageRequest: { case: "fileByFilename", value },
    });
    assert.deepEqual(names(filesOf(await ask1(v1.impl, byName("demo_shop.proto")))), [
      "demo_shop.proto",
      "demo_common.proto",
    ]);
    assert.deepEqual(names(filesOf(await ask1(v1.impl, byName("demo_common.proto")))), [
      "demo_common.proto",
    ]);
    assert.deepEqual(filesOf(await ask1(v1.impl, byName("grpc/health/v1/health.proto"))), [
      healthFileDescriptor,
    ]);
  });

  it("unknown symbol or file: error_response NOT_FOUND; no field set: INVALID_ARGUMENT; the stream goes on", async () => {
    const unknownFile: ServerReflectionRequest = {
      host: "h",
      messageRequest: { case: "fileByFilename", value: "nope.proto" },
    };
    const responses = await ask(
      v1.impl,
      symbol("no.Such"),
      unknownFile,
      { host: "" },
      symbol("demo.Greeter"),
      symbol("demo.shop.Shop"),
    );
    assert.deepEqual(
      responses.slice(0, 4).map((r) => [r.validHost, r.messageResponse]),
      [
        [
          "",
          {
            case: "errorResponse",
            value: { errorCode: Code.NotFound, errorMessage: 'symbol "no.Such" not found' },
          },
        ],
        [
          "h",
          {
            case: "errorResponse",
            value: { errorCode: Code.NotFound, errorMessage: 'file "nope.proto" not found' },
          },
        ],
        [
          "",
          {
            case: "errorResponse",
            value: {
              errorCode: Code.InvalidArgument,
              errorMessage: "no message_request field set",
            },
          },
        ],
        [
          "",
          {
            case: "errorResponse",
            value: { errorCode: Code.NotFound, errorMessage: 'symbol "demo.Greeter" not found' },
          },
        ],
      ],
    );
    assert.deepEqual(responses[2]?.originalRequest, { host: "" });
    assert.deepEqual(names(filesOf(responses[4] as ServerReflectionResponse)), [
      "demo_shop.proto",
      "demo_common.proto",
    ]);
  });

  it("asks each codec object for its descriptors once, on the first request, for both versions", async () => {
    let calls = 0;
    const counted: Codec = {
      name: "protobuf",
      forType: (type) => protobufCodec.forType(type),
      fileDescriptorProtos: () => {
        calls++;
        return protobufCodec.fileDescriptorProtos?.() ?? [];
      },
    };
    const [a, b] = reflectionServices([
      { typeName: "demo.shop.Shop", codec: counted },
      { typeName: "demo.shop.Other", codec: counted },
    ]);
    assert.ok(a && b);
    assert.equal(calls, 0);
    await ask(a.impl, symbol("demo.shop.Order"), symbol("demo.common.Money"));
    await ask(b.impl, symbol("demo.shop.Order"));
    assert.equal(calls, 1);
    // protobufjs's own descriptors, without `dependency`: the file alone.
    assert.deepEqual(names(filesOf(await ask1(b.impl, symbol("demo.shop.Order")))), [
      "demo_shop.proto",
    ]);
    // Health is described only when it is served.
    assert.equal(
      (await ask1(a.impl, symbol("grpc.health.v1.Health"))).messageResponse?.case,
      "errorResponse",
    );
  });

  it("a codec whose descriptors do not decode fails the stream with INTERNAL", async () => {
    const broken: Codec = { ...jsonCodec, fileDescriptorProtos: () => [new Uint8Array([0x0a])] };
    const [service] = reflectionServices([{ typeName: "x.Y", codec: broken }]);
    assert.ok(service);
    await assert.rejects(ask(service.impl, symbol("x.Y")), (err: unknown) => {
      assert.ok(err instanceof NearwireError);
      assert.equal(err.code, Code.Internal);
      return true;
    });
  });
});

describe("extensions and transitive dependencies", () => {
  const message = (name: string, extensions: Uint8Array[] = []) => {
    const w = new ProtoWriter().string(1, name);
    for (const e of extensions) w.bytes(6, e);
    return w.finish();
  };
  const extension = (name: string, number: number, extendee: string) =>
    new ProtoWriter().string(1, name).string(2, extendee).int32(3, number).finish();
  const file = (
    name: string,
    pkg: string,
    deps: string[],
    messages: Uint8Array[],
    extensions: Uint8Array[] = [],
  ) => {
    // The package after the messages: the index must not depend on field order.
    const w = new ProtoWriter().string(1, name);
    for (const d of deps) w.string(3, d);
    for (const m of messages) w.bytes(4, m);
    for (const e of extensions) w.bytes(7, e);
    return w.string(2, pkg).finish();
  };
  const files = [
    file("a.proto", "x", ["b.proto", "c.proto", "missing.proto"], [message("A")]),
    file("b.proto", "x", ["d.proto"], [message("B")]),
    file("c.proto", "x", ["d.proto", "a.proto"], [message("C")]),
    file("d.proto", "x", [], [message("Base")]),
    file(
      "ext.proto",
      "x.ext",
      ["d.proto"],
      [message("Holder", [extension("nested_ext", 101, ".x.Base")])],
      [extension("top_ext", 100, ".x.Base"), extension("more", 7, "x.Base")],
    ),
    file("dup.proto", "x", [], [message("A")]),
    file("a.proto", "other", [], [message("Shadowed")]),
  ];
  const codec: Codec = { ...jsonCodec, fileDescriptorProtos: () => files };
  const [v1] = reflectionServices([{ typeName: "x.S", codec }]);
  assert.ok(v1);
  const fileName = (bytes: Uint8Array) => names([bytes])[0];

  it("the index: breadth-first dependencies, each once, missing ones left out; first file and symbol win", () => {
    const index = new DescriptorIndex(files);
    assert.deepEqual(index.fileNames(), [
      "a.proto",
      "b.proto",
      "c.proto",
      "d.proto",
      "ext.proto",
      "dup.proto",
    ]);
    assert.deepEqual(index.fileContainingSymbol("x.A")?.map(fileName), [
      "a.proto",
      "b.proto",
      "c.proto",
      "d.proto",
    ]);
    assert.deepEqual(index.fileContainingSymbol("x.C")?.map(fileName), [
      "c.proto",
      "d.proto",
      "a.proto",
      "b.proto",
    ]);
    assert.equal(index.fileContainingSymbol("other.Shadowed"), undefined);
    assert.equal(index.fileContainingSymbol(".x.A"), undefined);
    assert.deepEqual(index.fileContainingSymbol("x.ext.Holder.nested_ext")?.map(fileName), [
      "ext.proto",
      "d.proto",
    ]);
    assert.deepEqual(index.fileContainingSymbol("x.ext.top_ext")?.map(fileName), [
      "ext.proto",
      "d.proto",
    ]);
  });

  it("file_containing_extension and all_extension_numbers_of_type", async () => {
    const responses = await ask(
      v1.impl,
      {
        host: "",
        messageRequest: {
          case: "fileContainingExtension",
          value: { containingType: "x.Base", extensionNumber: 101 },
        },
      },
      {
        host: "",
        messageRequest: {
          case: "fileContainingExtension",
          value: { containingType: "x.Base", extensionNumber: 5 },
        },
      },
      { host: "", messageRequest: { case: "allExtensionNumbersOfType", value: "x.Base" } },
      { host: "", messageRequest: { case: "allExtensionNumbersOfType", value: "x.A" } },
      { host: "", messageRequest: { case: "allExtensionNumbersOfType", value: "x.Nope" } },
    );
    assert.deepEqual(filesOf(responses[0] as ServerReflectionResponse).map(fileName), [
      "ext.proto",
      "d.proto",
    ]);
    assert.deepEqual(
      responses.slice(1).map((r) => r.messageResponse),
      [
        {
          case: "errorResponse",
          value: { errorCode: Code.NotFound, errorMessage: 'extension 5 of "x.Base" not found' },
        },
        {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: "x.Base", extensionNumber: [7, 100, 101] },
        },
        {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: "x.A", extensionNumber: [] },
        },
        {
          case: "errorResponse",
          value: { errorCode: Code.NotFound, errorMessage: 'type "x.Nope" not found' },
        },
      ],
    );
  });
});

describe("reflectionCodec (bytes)", () => {
  const fixture = protobuf.loadSync(`${FIXTURES}/reflection.proto`);
  const PbRequest = fixture.lookupType("grpc.reflection.v1alpha.ServerReflectionRequest");
  const PbResponse = fixture.lookupType("grpc.reflection.v1alpha.ServerReflectionResponse");
  const requestCodec = reflectionCodec.forType(
    messageType<ServerReflectionRequest>("grpc.reflection.v1.ServerReflectionRequest"),
  );
  const responseCodec = reflectionCodec.forType(
    messageType<ServerReflectionResponse>("grpc.reflection.v1.ServerReflectionResponse"),
  );
  const toObject = (type: protobuf.Type, bytes: Uint8Array) =>
    type.toObject(type.decode(bytes), { oneofs: true, bytes: Array, longs: Number });

  it("registers both messages under v1 and v1alpha, the same codecs", () => {
    for (const type of ["ServerReflectionRequest", "ServerReflectionResponse"]) {
      assert.equal(
        reflectionCodec.forType(messageType(`grpc.reflection.v1alpha.${type}`)),
        reflectionCodec.forType(messageType(`grpc.reflection.v1.${type}`)),
      );
    }
    assert.throws(
      () => reflectionCodec.forType(messageType("grpc.reflection.v1.ErrorResponse")),
      (err: unknown) => err instanceof NearwireError && err.code === Code.NotFound,
    );
  });

  it("decodes protobufjs's requests, list_services present-but-empty included", () => {
    const cases: [Record<string, unknown>, ServerReflectionRequest][] = [
      [{ listServices: "" }, { host: "", messageRequest: { case: "listServices", value: "" } }],
      [
        { host: "h", fileByFilename: "a.proto" },
        { host: "h", messageRequest: { case: "fileByFilename", value: "a.proto" } },
      ],
      [
        { fileContainingSymbol: "pkg.Ü" },
        { host: "", messageRequest: { case: "fileContainingSymbol", value: "pkg.Ü" } },
      ],
      [
        { fileContainingExtension: { containingType: "x.Base", extensionNumber: -2 } },
        {
          host: "",
          messageRequest: {
            case: "fileContainingExtension",
            value: { containingType: "x.Base", extensionNumber: -2 },
          },
        },
      ],
      [
        { allExtensionNumbersOfType: "x.Base" },
        { host: "", messageRequest: { case: "allExtensionNumbersOfType", value: "x.Base" } },
      ],
      [{ host: "only" }, { host: "only" }],
    ];
    for (const [pb, ours] of cases) {
      const bytes = new Uint8Array(PbRequest.encode(PbRequest.fromObject(pb)).finish());
      assert.deepEqual(requestCodec.decode(bytes), ours);
      assert.deepEqual(requestCodec.encode(ours), bytes);
    }
  });

  it("a stream of encoded requests answered by the service decodes with protobufjs", async () => {
    const [v1] = reflectionServices(SERVICES);
    assert.ok(v1);
    const requests = [
      { host: "h", listServices: "*" },
      { fileContainingSymbol: "demo.common.Money" },
      {},
    ].map((r) => requestCodec.decode(PbRequest.encode(PbRequest.fromObject(r)).finish()));
    const responses = (await ask(v1.impl, ...requests)).map((r) =>
      toObject(PbResponse, responseCodec.encode(r)),
    );
    const common = Array.from(
      (shopCodec.fileDescriptorProtos?.() ?? [])[0] ?? assert.fail("no descriptors"),
    );
    assert.deepEqual(responses, [
      {
        validHost: "h",
        originalRequest: { host: "h", listServices: "*", messageRequest: "listServices" },
        listServicesResponse: { service: SORTED_SERVICES.map((name) => ({ name })) },
        messageResponse: "listServicesResponse",
      },
      {
        originalRequest: {
          fileContainingSymbol: "demo.common.Money",
          messageRequest: "fileContainingSymbol",
        },
        fileDescriptorResponse: { fileDescriptorProto: [common] },
        messageResponse: "fileDescriptorResponse",
      },
      {
        originalRequest: {},
        errorResponse: { errorCode: 3, errorMessage: "no message_request field set" },
        messageResponse: "errorResponse",
      },
    ]);
  });

  it("responses survive encode and decode, packed or unpacked numbers, negative int32", () => {
    const values: ServerReflectionResponse[] = [
      {
        validHost: "h",
        originalRequest: { host: "h", messageRequest: { case: "listServices", value: "" } },
        messageResponse: {
          case: "listServicesResponse",
          value: { service: [{ name: "a.B" }, { name: "" }] },
        },
      },
      {
        validHost: "",
        messageResponse: {
          case: "fileDescriptorResponse",
          value: { fileDescriptorProto: [new Uint8Array([1, 2, 3]), new Uint8Array(0)] },
        },
      },
      {
        validHost: "",
        messageResponse: {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: "x.Base", extensionNumber: [1, 300, -1] },
        },
      },
      {
        validHost: "",
        messageResponse: { case: "errorResponse", value: { errorCode: -1, errorMessage: "é" } },
      },
      { validHost: "" },
    ];
    for (const value of values) {
      const bytes = responseCodec.encode(value);
      assert.deepEqual(responseCodec.decode(bytes), value);
      assert.deepEqual(
        responseCodec.decode(PbResponse.encode(PbResponse.decode(bytes)).finish()),
        value,
      );
    }
    // extension_number unpacked (one varint per number), as a proto2 writer sends it
    const unpacked = new ProtoWriter()
      .bytes(5, new ProtoWriter().string(1, "x.B").int32(2, 5).int32(2, -3).finish())
      .finish();
    assert.deepEqual(responseCodec.decode(unpacked), {
      validHost: "",
      messageResponse: {
        case: "allExtensionNumbersResponse",
        value: { baseTypeName: "x.B", extensionNumber: [5, -3] },
      },
    });
    assert.deepEqual(
      toObject(PbResponse, responseCodec.encode(values[3] as ServerReflectionResponse)),
      { errorResponse: { errorCode: -1, errorMessage: "é" }, messageResponse: "errorResponse" },
    );
  });

  it("skips unknown fields of every wire type", () => {
    const bytes = new Uint8Array([
      ...[0x10, 0x96, 0x01], // field 2 varint
      ...[0x49, 1, 2, 3, 4, 5, 6, 7, 8], // field 9 fixed64
      ...[0x55, 1, 2, 3, 4], // field 10 fixed32
      ...[0x5a, 0x01, 0x00], // field 11 bytes
      ...[0x3a, 0x00], // list_services = ""
    ]);
    assert.deepEqual(requestCodec.decode(bytes), {
      host: "",
      messageRequest: { case: "listServices", value: "" },
    });
  });

  it("malformed bytes: INVALID_ARGUMENT decode-failed", () => {
    const malformed: [string, number[]][] = [
      ["truncated varint", [0x80]],
      [
        "varint over 10 bytes",
        [0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
      ],
      ["truncated string", [0x1a, 0x05, 0x61]],
      ["field number 0", [0x00, 0x00]],
      ["group wire type", [0x0b, 0x0c]],
      ["wire type 7", [0x0f]],
      ["truncated fixed64", [0x09, 1, 2]],
      ["invalid UTF-8", [0x0a, 0x01, 0xff]],
      ["truncated embedded message", [0x2a, 0x03, 0x0a, 0x05, 0x61]],
    ];
    for (const [what, bytes] of malformed) {
      for (const codec of [requestCodec, responseCodec]) {
        assert.throws(
          () => codec.decode(new Uint8Array(bytes)),
          (err: unknown) =>
            err instanceof NearwireError &&
            err.code === Code.InvalidArgument &&
            err.reason === "decode-failed",
          what,
        );
      }
    }
  });

  it("the wire reader reads int32 of 10 bytes and reports the message type", () => {
    const bytes = new ProtoWriter().int32(1, -5).uint32(2, 0xffffffff).finish();
    assert.deepEqual(
      Array.from(bytes.subarray(0, 11)),
      [0x08, 0xfb, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
    );
    const r = new ProtoReader(bytes, "t.T");
    assert.equal(r.tag(), 0x08);
    assert.equal(r.int32(), -5);
    assert.equal(r.tag(), 0x10);
    assert.equal(r.uint32(), 0xffffffff);
    assert.equal(r.done, true);
    assert.throws(
      () => new ProtoReader(new Uint8Array([0x80]), "t.T").uint32(),
      (err: unknown) => err instanceof NearwireError && err.message === "t.T: truncated varint",
    );
  });
});

describe("builtin descriptors (python3 descriptor_pb2 + DescriptorPool)", () => {
  const SCRIPT = `
import base64, json, sys
from google.protobuf import descriptor_pb2, descriptor_pool
pool = descriptor_pool.DescriptorPool()
out = {"files": [], "services": {}, "messages": {}}
for raw in json.load(sys.stdin):
    f = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(raw))
    pool.Add(f)
    out["files"].append([f.name, f.package, f.syntax, f.options.deprecated])
    for s in f.service:
        d = pool.FindServiceByName(f.package + "." + s.name)
        out["services"][d.full_name] = [
            [m.name, m.input_type.full_name, m.output_type.full_name, m.client_streaming, m.server_streaming]
            for m in d.methods
        ]
    for m in f.message_type:
        d = pool.FindMessageTypeByName(f.package + "." + m.name)
        out["messages"][d.full_name] = [
            [x.name, x.number, x.type, x.label, x.containing_oneof.name if x.containing_oneof else None,
             (x.message_type or x.enum_type).full_name if (x.message_type or x.enum_type) else None]
            for x in d.fields
        ]
print(json.dumps(out))
`;

  function describeFiles(files: readonly Uint8Array[]): {
    files: [string, string, string, boolean][];
    services: Record<string, [string, string, string, boolean, boolean][]>;
    messages: Record<string, [string, number, number, number, string | null, string | null][]>;
  } {
    const py = spawnSync(PYTHON, ["-c", SCRIPT], {
      input: JSON.stringify(files.map((f) => Buffer.from(f).toString("base64"))),
      encoding: "utf8",
    });
    assert.equal(py.status, 0, `python3 (needs python3-protobuf): ${py.stderr}`);
    return JSON.parse(py.stdout);
  }

  it("health.proto: Check and Watch, the messages and the nested enum", () => {
    const out = describeFiles([healthFileDescriptor]);
    assert.deepEqual(out.files, [
      ["grpc/health/v1/health.proto", "grpc.health.v1", "proto3", false],
    ]);
    assert.deepEqual(out.services, {
      "grpc.health.v1.Health": [
        [
          "Check",
          "grpc.health.v1.HealthCheckRequest",
          "grpc.health.v1.HealthCheckResponse",
          false,
          false,
        ],
        [
          "Watch",
          "grpc.health.v1.HealthCheckRequest",
          "grpc.health.v1.HealthCheckResponse",
          false,
          true,
        ],
      ],
    });
    assert.deepEqual(out.messages, {
      "grpc.health.v1.HealthCheckRequest": [["service", 1, 9, 1, null, null]],
      "grpc.health.v1.HealthCheckResponse": [
        ["status", 1, 14, 1, null, "grpc.health.v1.HealthCheckResponse.ServingStatus"],
      ],
    });
  });

  it("reflection.proto v1 and v1alpha: ServerReflectionInfo and every message, oneofs included", () => {
    const out = describeFiles([reflectionV1FileDescriptor, reflectionV1alphaFileDescriptor]);
    assert.deepEqual(out.files, [
      ["grpc/reflection/v1/reflection.proto", "grpc.reflection.v1", "proto3", false],
      ["grpc/reflection/v1alpha/reflection.proto", "grpc.reflection.v1alpha", "proto3", true],
    ]);
    for (const pkg of ["grpc.reflection.v1", "grpc.reflection.v1alpha"]) {
      assert.deepEqual(out.services[`${pkg}.ServerReflection`], [
        [
          "ServerReflectionInfo",
          `${pkg}.ServerReflectionRequest`,
          `${pkg}.ServerReflectionResponse`,
          true,
          true,
        ],
      ]);
      const messages = Object.fromEntries(
        Object.entries(out.messages)
          .filter(([name]) => name.startsWith(`${pkg}.`))
          .map(([name, fields]) => [name.slice(pkg.length + 1), fields]),
      );
      const t = (name: string) => `${pkg}.${name}`;
      assert.deepEqual(messages, {
        ServerReflectionRequest: [
          ["host", 1, 9, 1, null, null],
          ["file_by_filename", 3, 9, 1, "message_request", null],
          ["file_containing_symbol", 4, 9, 1, "message_request", null],
          ["file_containing_extension", 5, 11, 1, "message_request", t("ExtensionRequest")],
          ["all_extension_numbers_of_type", 6, 9, 1, "message_request", null],
          ["list_services", 7, 9, 1, "message_request", null],
        ],
        ExtensionRequest: [
          ["containing_type", 1, 9, 1, null, null],
          ["extension_number", 2, 5, 1, null, null],
        ],
        ServerReflectionResponse: [
          ["valid_host", 1, 9, 1, null, null],
          ["original_request", 2, 11, 1, null, t("ServerReflectionRequest")],
          ["file_descriptor_response", 4, 11, 1, "message_response", t("FileDescriptorResponse")],
          [
            "all_extension_numbers_response",
            5,
            11,
            1,
            "message_response",
            t("ExtensionNumberResponse"),
          ],
          ["list_services_response", 6, 11, 1, "message_response", t("ListServiceResponse")],
          ["error_response", 7, 11, 1, "message_response", t("ErrorResponse")],
        ],
        FileDescriptorResponse: [["file_descriptor_proto", 1, 12, 3, null, null]],
        ExtensionNumberResponse: [
          ["base_type_name", 1, 9, 1, null, null],
          ["extension_number", 2, 5, 3, null, null],
        ],
        ListServiceResponse: [["service", 1, 11, 3, null, t("ServiceResponse")]],
        ServiceResponse: [["name", 1, 9, 1, null, null]],
        ErrorResponse: [
          ["error_code", 1, 5, 1, null, null],
          ["error_message", 2, 9, 1, null, null],
        ],
      });
    }
  });

  it("protobufjs's descriptor extension reads the same names and json names", () => {
    const file = descriptorExt.FileDescriptorProto.decode(reflectionV1FileDescriptor).toJSON();
    const request = (
      file.messageType as { name: string; oneofDecl: unknown; field: unknown[] }[]
    )[0];
    assert.equal(request?.name, "ServerReflectionRequest");
    assert.deepEqual(request?.oneofDecl, [{ name: "message_request" }]);
    assert.deepEqual(request?.field[5], {
      name: "list_services",
      number: 7,
      label: "LABEL_OPTIONAL",
      type: "TYPE_STRING",
      oneofIndex: 0,
      jsonName: "listServices",
    });
  });

  it("the files a symbol request returns (file, then dependency) make a valid pool", async () => {
    const [v1] = reflectionServices(SERVICES);
    assert.ok(v1);
    const files = filesOf(await ask1(v1.impl, symbol("demo.shop.Shop.Buy")));
    const out = describeFiles([...files].reverse());
    assert.deepEqual(out.services, {
      "demo.shop.Shop": [["Buy", "demo.shop.Order", "demo.common.Money", false, false]],
    });
  });
});

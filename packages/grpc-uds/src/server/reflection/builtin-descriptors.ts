/**
 * The encoded FileDescriptorProtos of the services grpc-uds serves with hand-written codecs:
 * `grpc/health/v1/health.proto` and `grpc/reflection/{v1,v1alpha}/reflection.proto`. They are
 * written down here as data and encoded once, at module load, with {@link ProtoWriter}.
 */
import { ProtoWriter } from "./proto-wire.js";

/** A field's type: a scalar, or a message or enum by fully-qualified name (`.pkg.Type`). */
type FieldType = "string" | "bytes" | "int32" | { message: string } | { enum: string };

interface FieldSpec {
  readonly name: string;
  readonly number: number;
  readonly type: FieldType;
  readonly repeated?: boolean;
  /** Index into the message's `oneofs`. */
  readonly oneof?: number;
}

interface EnumSpec {
  readonly name: string;
  readonly values: readonly (readonly [name: string, number: number])[];
}

interface MessageSpec {
  readonly name: string;
  readonly fields: readonly FieldSpec[];
  readonly oneofs?: readonly string[];
  readonly enums?: readonly EnumSpec[];
}

interface MethodSpec {
  readonly name: string;
  readonly input: string;
  readonly output: string;
  readonly clientStreaming?: boolean;
  readonly serverStreaming?: boolean;
}

interface FileSpec {
  readonly name: string;
  readonly package: string;
  readonly messages: readonly MessageSpec[];
  readonly service: { readonly name: string; readonly methods: readonly MethodSpec[] };
  readonly deprecated?: boolean;
}

// FieldDescriptorProto.Type and .Label values.
const TYPE_INT32 = 5;
const TYPE_STRING = 9;
const TYPE_MESSAGE = 11;
const TYPE_BYTES = 12;
const TYPE_ENUM = 14;
const LABEL_OPTIONAL = 1;
const LABEL_REPEATED = 3;

/** protoc's json_name: `file_by_filename` → `fileByFilename`. */
function jsonName(name: string): string {
  return name.replace(/_(.)/g, (_, c: string) => c.toUpperCase());
}

function encodeField(field: FieldSpec): Uint8Array {
  const w = new ProtoWriter()
    .string(1, field.name)
    .int32(3, field.number)
    .uint32(4, field.repeated === true ? LABEL_REPEATED : LABEL_OPTIONAL);
  const { type } = field;
  if (type === "string") w.uint32(5, TYPE_STRING);
  else if (type === "bytes") w.uint32(5, TYPE_BYTES);
  else if (type === "int32") w.uint32(5, TYPE_INT32);
  else if ("message" in type) w.uint32(5, TYPE_MESSAGE).string(6, type.message);
  else w.uint32(5, TYPE_ENUM).string(6, type.enum);
  if (field.oneof !== undefined) w.int32(9, field.oneof);
  return w.string(10, jsonName(field.name)).finish();
}

function encodeEnum(spec: EnumSpec): Uint8Array {
  const w = new ProtoWriter().string(1, spec.name);
  for (const [name, number] of spec.values)
    w.bytes(2, new ProtoWriter().string(1, name).int32(2, number).finish());
  return w.finish();
}

function encodeMessage(spec: MessageSpec): Uint8Array {
  const w = new ProtoWriter().string(1, spec.name);
  for (const field of spec.fields) w.bytes(2, encodeField(field));
  for (const e of spec.enums ?? []) w.bytes(4, encodeEnum(e));
  for (const oneof of spec.oneofs ?? []) w.bytes(8, new ProtoWriter().string(1, oneof).finish());
  return w.finish();
}

function encodeMethod(spec: MethodSpec): Uint8Array {
  const w = new ProtoWriter().string(1, spec.name).string(2, spec.input).string(3, spec.output);
  if (spec.clientStreaming === true) w.bool(5, true);
  if (spec.serverStreaming === true) w.bool(6, true);
  return w.finish();
}

function encodeFile(spec: FileSpec): Uint8Array {
  const w = new ProtoWriter().string(1, spec.name).string(2, spec.package);
  for (const message of spec.messages) w.bytes(4, encodeMessage(message));
  const service = new ProtoWriter().string(1, spec.service.name);
  for (const method of spec.service.methods) service.bytes(2, encodeMethod(method));
  w.bytes(6, service.finish());
  // FileOptions.deprecated = 23
  if (spec.deprecated === true) w.bytes(8, new ProtoWriter().bool(23, true).finish());
  return w.string(12, "proto3").finish();
}

const health = ".grpc.health.v1.";

/** `grpc/health/v1/health.proto`: `grpc.health.v1.Health` (Check, Watch) and its messages. */
export const healthFileDescriptor: Uint8Array = encodeFile({
  name: "grpc/health/v1/health.proto",
  package: "grpc.health.v1",
  messages: [
    { name: "HealthCheckRequest", fields: [{ name: "service", number: 1, type: "string" }] },
    {
      name: "HealthCheckResponse",
      fields: [
        {
          name: "status",
          number: 1,
          type: { enum: `${health}HealthCheckResponse.ServingStatus` },
        },
      ],
      enums: [
        {
          name: "ServingStatus",
          values: [
            ["UNKNOWN", 0],
            ["SERVING", 1],
            ["NOT_SERVING", 2],
            ["SERVICE_UNKNOWN", 3],
          ],
        },
      ],
    },
  ],
  service: {
    name: "Health",
    methods: [
      {
        name: "Check",
        input: `${health}HealthCheckRequest`,
        output: `${health}HealthCheckResponse`,
      },
      {
        name: "Watch",
        input: `${health}HealthCheckRequest`,
        output: `${health}HealthCheckResponse`,
        serverStreaming: true,
      },
    ],
  },
});

/** `grpc/reflection/<version>/reflection.proto` for package `grpc.reflection.<version>`. */
function reflectionFile(version: "v1" | "v1alpha"): Uint8Array {
  const p = `.grpc.reflection.${version}.`;
  return encodeFile({
    name: `grpc/reflection/${version}/reflection.proto`,
    package: `grpc.reflection.${version}`,
    deprecated: version === "v1alpha",
    messages: [
      {
        name: "ServerReflectionRequest",
        oneofs: ["message_request"],
        fields: [
          { name: "host", number: 1, type: "string" },
          { name: "file_by_filename", number: 3, type: "string", oneof: 0 },
          { name: "file_containing_symbol", number: 4, type: "string", oneof: 0 },
          {
            name: "file_containing_extension",
            number: 5,
            type: { message: `${p}ExtensionRequest` },
            oneof: 0,
          },
          { name: "all_extension_numbers_of_type", number: 6, type: "string", oneof: 0 },
          { name: "list_services", number: 7, type: "string", oneof: 0 },
        ],
      },
      {
        name: "ExtensionRequest",
        fields: [
          { name: "containing_type", number: 1, type: "string" },
          { name: "extension_number", number: 2, type: "int32" },
        ],
      },
      {
        name: "ServerReflectionResponse",
        oneofs: ["message_response"],
        fields: [
          { name: "valid_host", number: 1, type: "string" },
          {
            name: "original_request",
            number: 2,
            type: { message: `${p}ServerReflectionRequest` },
          },
          {
            name: "file_descriptor_response",
            number: 4,
            type: { message: `${p}FileDescriptorResponse` },
            oneof: 0,
          },
          {
            name: "all_extension_numbers_response",
            number: 5,
            type: { message: `${p}ExtensionNumberResponse` },
            oneof: 0,
          },
          {
            name: "list_services_response",
            number: 6,
            type: { message: `${p}ListServiceResponse` },
            oneof: 0,
          },
          {
            name: "error_response",
            number: 7,
            type: { message: `${p}ErrorResponse` },
            oneof: 0,
          },
        ],
      },
      {
        name: "FileDescriptorResponse",
        fields: [{ name: "file_descriptor_proto", number: 1, type: "bytes", repeated: true }],
      },
      {
        name: "ExtensionNumberResponse",
        fields: [
          { name: "base_type_name", number: 1, type: "string" },
          { name: "extension_number", number: 2, type: "int32", repeated: true },
        ],
      },
      {
        name: "ListServiceResponse",
        fields: [
          {
            name: "service",
            number: 1,
            type: { message: `${p}ServiceResponse` },
            repeated: true,
          },
        ],
      },
      { name: "ServiceResponse", fields: [{ name: "name", number: 1, type: "string" }] },
      {
        name: "ErrorResponse",
        fields: [
          { name: "error_code", number: 1, type: "int32" },
          { name: "error_message", number: 2, type: "string" },
        ],
      },
    ],
    service: {
      name: "ServerReflection",
      methods: [
        {
          name: "ServerReflectionInfo",
          input: `${p}ServerReflectionRequest`,
          output: `${p}ServerReflectionResponse`,
          clientStreaming: true,
          serverStreaming: true,
        },
      ],
    },
  });
}

/** `grpc/reflection/v1/reflection.proto`: `grpc.reflection.v1.ServerReflection`. */
export const reflectionV1FileDescriptor: Uint8Array = reflectionFile("v1");

/** `grpc/reflection/v1alpha/reflection.proto` (deprecated upstream, still asked for by clients). */
export const reflectionV1alphaFileDescriptor: Uint8Array = reflectionFile("v1alpha");

/**
 * The protoc plugin protocol: a `CodeGeneratorRequest` on stdin (the files to generate and every
 * file they import, as `FileDescriptorProto`s), a `CodeGeneratorResponse` on stdout.
 * https://protobuf.dev/reference/other/#plugins — google/protobuf/compiler/plugin.proto.
 */
import { createRequire } from "node:module";
import protobuf from "protobufjs";
import type { IDescriptorProto, IFileDescriptorProto } from "protobufjs/ext/descriptor.js";
import { generateTs, outputName } from "./generate-ts.js";
import { isNamespace, isType } from "./reflection.js";
import type { GenerateTarget } from "./schema-closure.js";

/** The fields of plugin.proto this plugin reads and writes. */
const PLUGIN_PROTO = `
syntax = "proto2";
package google.protobuf.compiler;
message CodeGeneratorRequest {
  repeated string file_to_generate = 1;
  optional string parameter = 2;
  repeated bytes proto_file = 15;
}
message CodeGeneratorResponse {
  optional string error = 1;
  optional uint64 supported_features = 2;
  message File {
    optional string name = 1;
    optional string content = 15;
  }
  repeated File file = 15;
}
`;

/** `CodeGeneratorResponse.Feature.FEATURE_PROTO3_OPTIONAL`: without it protoc refuses `optional`. */
const FEATURE_PROTO3_OPTIONAL = 1;

const plugin = protobuf.parse(PLUGIN_PROTO, { keepCase: true }).root;
const Request = plugin.lookupType("google.protobuf.compiler.CodeGeneratorRequest");
const Response = plugin.lookupType("google.protobuf.compiler.CodeGeneratorResponse");

interface DescriptorExt {
  FileDescriptorProto: { decode(bytes: Uint8Array): IFileDescriptorProto };
}

/** protobufjs's descriptor extension: it adds `Root.fromDescriptor` when loaded. */
const descriptor = createRequire(import.meta.url)("protobufjs/ext/descriptor.js") as DescriptorExt;

/**
 * Field and oneof names as protobufjs's `.proto` parser makes them (`util.camelCase`), so a file
 * generated through protoc matches one generated from the `.proto` text and what
 * `servicesFromProto` decodes (protoc's own `json_name` differs: `foo_bar_1` → `fooBar1`, not
 * `fooBar_1`). `Root.fromDescriptor` names fields after `jsonName`, hence it is set here, and
 * put back by {@link protocJsonNames} once the root is built.
 */
function camelCaseNames(message: IDescriptorProto): void {
  for (const field of message.field ?? [])
    if (field.name) field.jsonName = protobuf.util.camelCase(field.name);
  for (const oneof of message.oneofDecl ?? [])
    if (oneof.name) oneof.name = protobuf.util.camelCase(oneof.name);
  for (const nested of message.nestedType ?? []) camelCaseNames(nested);
}

/** Each field's JSON name as protoc derives it from the `.proto` name (what the parser leaves). */
function protocJsonNames(ns: protobuf.NamespaceBase): void {
  for (const obj of ns.nestedArray) {
    if (isType(obj))
      for (const field of obj.fieldsArray)
        (field as { jsonName: string }).jsonName = protobuf.util.jsonName(field.protoName);
    if (isNamespace(obj)) protocJsonNames(obj);
  }
}

function messageNames(prefix: string, message: IDescriptorProto, out: string[]): void {
  const name = `${prefix}${message.name}`;
  out.push(name);
  for (const e of message.enumType ?? []) out.push(`${name}.${e.name}`);
  // A map field's entry type: protobufjs makes the field a map and keeps no such type.
  for (const nested of message.nestedType ?? [])
    if (nested.options?.mapEntry !== true) messageNames(`${name}.`, nested, out);
}

/** What a file defines, by full name. */
function targetOf(file: IFileDescriptorProto): GenerateTarget {
  const prefix = file.package ? `${file.package}.` : "";
  const types: string[] = [];
  for (const message of file.messageType ?? []) messageNames(prefix, message, types);
  for (const e of file.enumType ?? []) types.push(`${prefix}${e.name}`);
  const services = (file.service ?? []).map((s) => `${prefix}${s.name}`);
  return { fileName: file.name ?? "", types, services };
}

/** One generated file: its path under the output directory and its text. */
export interface GeneratedFile {
  readonly name: string;
  readonly content: string;
}

/**
 * The files for a decoded request's `file_to_generate`; each from a root of its own (the request's
 * files are given dependencies first, as protoc sends them). Throws on an unknown parameter:
 * this plugin takes none.
 */
export function generateFromRequest(request: Uint8Array): GeneratedFile[] {
  const decoded = Request.decode(request) as unknown as {
    file_to_generate: string[];
    parameter?: string;
    proto_file: Uint8Array[];
  };
  if (decoded.parameter)
    throw new Error(`protoc-gen-nearwire takes no parameter, got "${decoded.parameter}"`);
  const files = decoded.proto_file.map((bytes) => descriptor.FileDescriptorProto.decode(bytes));
  for (const file of files) for (const message of file.messageType ?? []) camelCaseNames(message);
  return decoded.file_to_generate.map((name) => {
    const file = files.find((f) => f.name === name);
    if (file === undefined) throw new Error(`protoc sent no descriptor for ${name}`);
    const root = protobuf.Root.fromDescriptor({ file: files });
    protocJsonNames(root);
    return { name: outputName(name), content: generateTs(root, targetOf(file)) };
  });
}

/**
 * Runs the plugin on an encoded `CodeGeneratorRequest` and returns the encoded
 * `CodeGeneratorResponse`. A failure is reported in the response's `error` (protoc prints it
 * and fails), not thrown.
 */
export function runPlugin(request: Uint8Array): Uint8Array {
  let response: Record<string, unknown>;
  try {
    response = {
      supported_features: FEATURE_PROTO3_OPTIONAL,
      file: generateFromRequest(request),
    };
  } catch (err) {
    response = { error: (err as Error).message };
  }
  return Response.encode(Response.fromObject(response)).finish();
}

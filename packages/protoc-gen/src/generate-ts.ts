/**
 * generateTs: one `.proto` file's messages, enums and services as a TypeScript module for
 * nearwire — interfaces shaped as `@nearwire/codec-protobuf` decodes them, `messageType`s,
 * `defineService` definitions, and the codec over the embedded schema.
 */
import { Code, NearwireError } from "@nearwire/core";
import type { Enum, Field, ReflectionObject, Root, Service, Type } from "protobufjs";
import { fullName, isType } from "./reflection.js";
import { type Closure, closure, closureJson, type GenerateTarget } from "./schema-closure.js";

/** The package named in every generated file's header. */
export const GENERATOR = "@nearwire/protoc-gen";

/** The output file of a `.proto` file: `acme/v1/greeter.proto` → `acme/v1/greeter_nearwire.ts`. */
export function outputName(fileName: string): string {
  return `${fileName.replace(/\.proto$/, "")}_nearwire.ts`;
}

/**
 * TS types of the scalar field types as the protobuf codec decodes them: 64-bit integers are
 * numbers (its default `longs: "number"`; values past 2^53-1 fail to decode), bytes views.
 */
const SCALARS: Readonly<Record<string, string>> = {
  double: "number",
  float: "number",
  int32: "number",
  uint32: "number",
  sint32: "number",
  fixed32: "number",
  sfixed32: "number",
  int64: "number",
  uint64: "number",
  sint64: "number",
  fixed64: "number",
  sfixed64: "number",
  bool: "boolean",
  string: "string",
  bytes: "Uint8Array",
};

/**
 * Names a proto type cannot take in the generated module: reserved words, TypeScript's type
 * keywords, and what the module itself declares or imports. Such a name gets a `$` suffix.
 */
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with yield let static implements interface package private " +
    "protected public await any unknown never object string number boolean symbol bigint " +
    "undefined Uint8Array Codec protobuf defineService messageType unary serverStreaming " +
    "clientStreaming bidiStreaming createProtobufCodec root codec schema"
  ).split(" "),
);

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

/** `Outer.Inner` inside its package → `Outer_Inner`, as protoc-gen-es names nested types. */
function localName(obj: ReflectionObject): string {
  const parts = [obj.name];
  for (let p = obj.parent; isType(p); p = p.parent) parts.unshift(p.name);
  return parts.join("_");
}

/**
 * A TS name per type and service: its local name, or, where two share one (`a.v1.Status` and
 * `b.v1.Status`), the full name with `_` for `.` for each of them.
 */
function tsNames(objects: readonly ReflectionObject[]): Map<ReflectionObject, string> {
  const byLocal = new Map<string, ReflectionObject[]>();
  for (const obj of objects) {
    const local = localName(obj);
    byLocal.set(local, [...(byLocal.get(local) ?? []), obj]);
  }
  const names = new Map<ReflectionObject, string>();
  const taken = new Map<string, ReflectionObject>();
  for (const [local, group] of byLocal) {
    for (const obj of group) {
      let name = group.length === 1 ? local : fullName(obj).replaceAll(".", "_");
      if (RESERVED.has(name)) name += "$";
      const other = taken.get(name);
      if (other !== undefined)
        throw new NearwireError(
          Code.InvalidArgument,
          `${fullName(other)} and ${fullName(obj)} would both be named ${name} in TypeScript`,
        );
      taken.set(name, obj);
      names.set(obj, name);
    }
  }
  return names;
}

/** How the field reads in the `.proto`: `repeated string tags = 3`. */
function protoDeclaration(field: Field): string {
  const type = field.resolvedType === null ? field.type : fullName(field.resolvedType);
  const keyType = (field as Field & { keyType?: string }).keyType;
  const declared = field.map
    ? `map<${keyType}, ${type}>`
    : field.repeated
      ? `repeated ${type}`
      : type;
  return `${declared} ${field.protoName ?? field.name} = ${field.id}`;
}

function fieldType(field: Field, names: Map<ReflectionObject, string>): string {
  let type: string | undefined;
  if (field.resolvedType !== null) type = names.get(field.resolvedType);
  else type = SCALARS[field.type];
  if (type === undefined)
    throw new NearwireError(
      Code.InvalidArgument,
      `field ${fullName(field)} has type "${field.type}", which the generator does not know`,
    );
  // protobufjs decodes a map into a plain object; 64-bit keys become 8-character hash strings.
  if (field.map) return `{ [key: string]: ${type} }`;
  return field.repeated ? `${type}[]` : type;
}

/**
 * Whether a field may be absent: a singular message field, a oneof member (`optional` in proto3
 * is a oneof of one), a proto2 `optional` field. protobufjs's own `hasPresence` says no for
 * proto3 message fields, which decode as `null` when absent all the same.
 */
function tracksPresence(field: Field): boolean {
  if (field.required || field.repeated || field.map) return false;
  return isType(field.resolvedType) || field.partOf !== null || field.hasPresence;
}

/**
 * A message's interface. Fields are present after decoding (absent ones read their default
 * from the message's prototype), so they are required; fields that track presence (message
 * fields, `optional`, oneof members, proto2 optional) may be left out and decode as `null` when
 * absent. A real oneof also has its virtual property: the name of the member that is set.
 */
function messageInterface(type: Type, names: Map<ReflectionObject, string>): string[] {
  const name = names.get(type) as string;
  const lines = [`/** Message \`${fullName(type)}\`. */`, `export interface ${name} {`];
  for (const field of type.fieldsArray) {
    if (field.declaringField !== null) continue;
    lines.push(`  /** \`${protoDeclaration(field)}\` */`);
    const key = propertyKey(field.name);
    const ts = fieldType(field, names);
    if (tracksPresence(field)) lines.push(`  ${key}?: ${ts} | null;`);
    else lines.push(`  ${key}: ${ts};`);
  }
  for (const oneof of type.oneofsArray) {
    const synthetic =
      oneof.fieldsArray.length === 1 && oneof.fieldsArray[0]?.options?.proto3_optional === true;
    if (synthetic) continue;
    const members = oneof.fieldsArray.map((f) => JSON.stringify(f.name)).join(" | ");
    lines.push(`  /** Which member of \`oneof ${oneof.name}\` is set (read-only). */`);
    lines.push(`  readonly ${propertyKey(oneof.name)}?: ${members};`);
  }
  if (lines.length === 2) lines[1] += "}";
  else lines.push("}");
  lines.push(
    `/** Message type \`${fullName(type)}\`: for service definitions and \`codec.forType\`. */`,
    `export const ${name} = messageType<${name}>(${JSON.stringify(fullName(type))});`,
  );
  return lines;
}

/** An enum as a constant object and the union of its values (protobufjs decodes enums as numbers). */
function enumDeclaration(e: Enum, names: Map<ReflectionObject, string>): string[] {
  const name = names.get(e) as string;
  const lines = [`/** Enum \`${fullName(e)}\`. */`, `export const ${name} = {`];
  for (const [key, value] of Object.entries(e.values))
    lines.push(`  ${propertyKey(key)}: ${value},`);
  lines.push(
    "} as const;",
    `/** Enum \`${fullName(e)}\`: one of the values of {@link ${name}}. */`,
    `export type ${name} = (typeof ${name})[keyof typeof ${name}];`,
  );
  return lines;
}

const KINDS = {
  "false,false": "unary",
  "false,true": "serverStreaming",
  "true,false": "clientStreaming",
  "true,true": "bidiStreaming",
} as const;

function serviceDefinition(
  service: Service,
  names: Map<ReflectionObject, string>,
  used: Set<string>,
): string[] {
  const name = names.get(service) as string;
  const lines = [
    `/** Service \`${fullName(service)}\`: \`server.addService(${name}, impl, { codec })\`. */`,
    `export const ${name} = defineService(${JSON.stringify(fullName(service))}, {`,
  ];
  for (const method of service.methodsArray) {
    const kind = KINDS[`${method.requestStream === true},${method.responseStream === true}`];
    used.add(kind);
    const input = names.get(method.resolvedRequestType as Type);
    const output = names.get(method.resolvedResponseType as Type);
    lines.push(`  ${propertyKey(method.name)}: ${kind}(${input}, ${output}),`);
  }
  lines.push("});");
  return lines;
}

function header(fileName: string): string[] {
  return [
    `// @generated by ${GENERATOR} from ${fileName}. DO NOT EDIT.`,
    `// Message types, services and the protobuf codec of ${fileName} for nearwire; regenerate`,
    "// this file (nearwire-protoc or protoc --nearwire_out) after changing the .proto.",
    "/* eslint-disable */",
  ];
}

function imports(c: Closure, used: Set<string>): string[] {
  const core = ["type Codec"];
  if (c.types.some(isType)) core.push("messageType");
  if (c.services.length > 0) core.push("defineService");
  for (const kind of ["unary", "serverStreaming", "clientStreaming", "bidiStreaming"])
    if (used.has(kind)) core.push(kind);
  core.sort((a, b) => a.replace(/^type /, "").localeCompare(b.replace(/^type /, "")));
  return [
    'import { createProtobufCodec } from "@nearwire/codec-protobuf";',
    `import { ${core.join(", ")} } from "@nearwire/core";`,
    'import protobuf from "protobufjs/light.js";',
  ];
}

/**
 * The TypeScript module for one `.proto` file: given the same schema it writes the same bytes
 * (types and services in full-name order, no dates or paths of the machine).
 *
 * It declares, for the file's messages and enums and every type they or its services reach:
 * an interface and a `messageType` per message (same name), a constant object and a union type
 * per enum; a `defineService` per service of the file, methods under their `.proto` names
 * (the wire path); and `root` and `codec` (`createProtobufCodec` over the schema, which the
 * module embeds as protobufjs JSON, so no `.proto` is read at run time). Nested types are named
 * `Outer_Inner`; types whose names clash across packages get their full name
 * (`a_v1_Status`); names TypeScript reserves get a `$` suffix.
 *
 * `root` is not kept as it was: its type references are made absolute. Throws INVALID_ARGUMENT
 * when the schema does not resolve, NOT_FOUND when a target name is not in it.
 */
export function generateTs(root: Root, target: GenerateTarget): string {
  try {
    root.resolveAll();
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, `protobuf schema: ${(cause as Error).message}`, {
      cause,
    });
  }
  const c = closure(root, target);
  const names = tsNames([...c.types, ...c.services]);
  const body: string[] = [];
  for (const obj of c.types) {
    body.push("");
    body.push(
      ...(isType(obj) ? messageInterface(obj, names) : enumDeclaration(obj as Enum, names)),
    );
  }
  const used = new Set<string>();
  for (const service of c.services) body.push("", ...serviceDefinition(service, names, used));
  const schema = JSON.stringify(closureJson(c), null, 2);
  return [
    ...header(target.fileName),
    ...imports(c, used),
    ...body,
    "",
    `/** The part of the schema this module uses, as protobufjs JSON. */`,
    `const schema = ${schema};`,
    "",
    "/** The protobufjs root of the schema above. */",
    "export const root: protobuf.Root = protobuf.Root.fromJSON(schema as protobuf.INamespace);",
    "",
    "/** The protobuf codec of these messages: bind every service above with `{ codec }`. */",
    "export const codec: Codec = createProtobufCodec(root);",
    "",
  ].join("\n");
}

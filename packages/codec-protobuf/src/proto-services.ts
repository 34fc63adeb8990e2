/**
 * loadServices / servicesFromProto: nearwire service definitions read from a protobufjs root at
 * run time, with the protobuf codec over the same root beside them.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join } from "node:path";
import type { Codec, MethodDefinition, ServiceDefinition } from "@nearwire/core";
import {
  bidiStreaming,
  Code,
  clientStreaming,
  defineService,
  messageType,
  NearwireError,
  serverStreaming,
  unary,
} from "@nearwire/core";
import { messageOf } from "@nearwire/core/transport-kit";
import type { Method, Namespace, ReflectionObject, Root, Service } from "protobufjs";
import { createProtobufCodec, type ProtobufCodecOptions } from "./protobuf-codec.js";

/**
 * A method read from a schema at run time. Its messages are `any` and its call kind is not known
 * to TypeScript, so handlers and clients of a loaded service are not type-checked: annotate them,
 * or generate typed definitions with `@nearwire/protoc-gen`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the schema is only known at run time
export type ProtoMethod = MethodDefinition<any, any, any>;

/** A service read from a schema at run time; its methods are keyed by their `.proto` names. */
export type ProtoService = ServiceDefinition<Record<string, ProtoMethod>>;

/** What {@link loadServices} and {@link servicesFromProto} return. */
export interface ProtoServices {
  /**
   * Every service under the namespace, keyed by its own name (`Greeter` for
   * `helloworld.Greeter`); each definition's `typeName` is the full name.
   */
  readonly services: Readonly<Record<string, ProtoService>>;
  /**
   * The protobuf codec over the same root: bind the services with it
   * (`server.addService(Greeter, impl, { codec })`, `connection.client(Greeter, { codec })`).
   */
  readonly codec: Codec;
  /** The protobufjs root the services and the codec were read from. */
  readonly root: Root;
  /**
   * One service by its own name (`Greeter`) or its full name (`helloworld.Greeter`), without the
   * `undefined` that indexing {@link services} gives under `noUncheckedIndexedAccess`. Throws
   * NOT_FOUND when there is no such service.
   */
  service(name: string): ProtoService;
}

/** Options of {@link servicesFromProto}: where imports are found, and the codec's options. */
export interface ProtoLoadOptions extends ProtobufCodecOptions {
  /**
   * Directories searched, in order, for a relative `import` (as protoc's `-I`); an import found
   * in none is resolved against the importing file's directory. `google/protobuf/*.proto` always
   * comes from protobufjs's bundled copies. Default: none.
   */
  readonly includeDirs?: readonly string[];
}

/** protobufjs names each reflection class in `className` (kept by minifiers, unlike `name`). */
function isService(obj: ReflectionObject): obj is Service {
  return (obj.constructor as { className?: string }).className === "Service";
}

function isNamespace(obj: ReflectionObject): obj is Namespace {
  return "nestedArray" in obj;
}

function collectServices(ns: Namespace, out: Service[]): void {
  for (const obj of ns.nestedArray) {
    if (isService(obj)) out.push(obj);
    else if (isNamespace(obj)) collectServices(obj, out);
  }
}

/** `.helloworld.HelloRequest` → `helloworld.HelloRequest`. */
function fullName(obj: ReflectionObject): string {
  return obj.fullName.replace(/^\./, "");
}

function methodDefinition(method: Method): ProtoMethod {
  const input = messageType(fullName(method.resolvedRequestType as ReflectionObject));
  const output = messageType(fullName(method.resolvedResponseType as ReflectionObject));
  if (method.requestStream === true)
    return method.responseStream === true
      ? bidiStreaming(input, output)
      : clientStreaming(input, output);
  return method.responseStream === true ? serverStreaming(input, output) : unary(input, output);
}

/**
 * The services of a protobufjs root (from `protobuf.load`, `protobuf.loadSync`, `protobuf.parse`
 * or `Root.fromJSON`) as nearwire service definitions, and the protobuf codec over that root.
 *
 * - Call kinds follow the `.proto`: `stream` on the request and/or the response gives unary,
 *   server-streaming, client-streaming or bidi-streaming.
 * - Methods keep their `.proto` names (`SayHello`), since the name is the wire path
 *   (`/helloworld.Greeter/SayHello`) that stock gRPC peers call. Message types are the full names.
 * - Passing a nested namespace (`root.lookup("helloworld")`) loads only the services under it:
 *   that is how two services with the same own name in different packages are told apart, since
 *   {@link ProtoServices.services} is keyed by own name and a clash throws INVALID_ARGUMENT.
 * - The definitions carry no codec: nearwire binds one per service when serving or calling, so
 *   `codec` is returned beside them rather than hidden inside.
 * - Types are known only at run time: messages are `any` to TypeScript (see {@link ProtoMethod}).
 *
 * Throws INVALID_ARGUMENT when a method's message type cannot be resolved.
 */
export function loadServices(
  namespace: Root | Namespace,
  options: ProtobufCodecOptions = {},
): ProtoServices {
  const root = namespace.root;
  try {
    root.resolveAll();
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, `protobuf schema: ${messageOf(cause)}`, {
      cause,
    });
  }
  const found: Service[] = [];
  collectServices(namespace, found);
  const services: Record<string, ProtoService> = {};
  const byFullName = new Map<string, ProtoService>();
  for (const service of found) {
    const methods: Record<string, ProtoMethod> = {};
    for (const method of service.methodsArray) methods[method.name] = methodDefinition(method);
    const definition = defineService(fullName(service), methods);
    const clash = services[service.name];
    if (clash !== undefined)
      throw new NearwireError(
        Code.InvalidArgument,
        `two services are named ${service.name} (${clash.typeName}, ${definition.typeName}): ` +
          `load one package at a time, e.g. loadServices(root.lookup("${fullName(service.parent as ReflectionObject)}"))`,
      );
    services[service.name] = definition;
    byFullName.set(definition.typeName, definition);
  }
  return {
    services,
    codec: createProtobufCodec(root, options),
    root,
    service(name) {
      const definition = Object.hasOwn(services, name) ? services[name] : byFullName.get(name);
      if (definition === undefined)
        throw new NearwireError(
          Code.NotFound,
          `no service "${name}" in the protobuf schema (it has ${[...byFullName.keys()].join(", ") || "none"})`,
        );
      return definition;
    },
  };
}

/**
 * Reads `.proto` files (and their imports) with protobufjs and returns their services as
 * {@link loadServices} does. Synchronous, for start-up code. Field names are camelCase, as
 * protobufjs decodes them by default (`user_id` → `userId`).
 *
 * Throws INVALID_ARGUMENT when a file cannot be read or parsed, or a type cannot be resolved.
 *
 * @example
 * ```ts
 * const proto = servicesFromProto("proto/greeter.proto");
 * server.addService(
 *   proto.service("Greeter"),
 *   { SayHello: (req: { name: string }) => ({ message: `hello, ${req.name}` }) },
 *   { codec: proto.codec },
 * );
 * ```
 */
export function servicesFromProto(
  files: string | readonly string[],
  options: ProtoLoadOptions = {},
): ProtoServices {
  return loadServices(loadProtoFiles(files, options), options);
}

/**
 * Reads `.proto` files and their imports into a new protobufjs root (`Root#loadSync`), looking
 * for imports in `includeDirs` first. Each object the files define keeps the path it was read
 * from in `filename` (as given here). Throws INVALID_ARGUMENT when a file cannot be read or
 * parsed.
 */
export function loadProtoFiles(
  files: string | readonly string[],
  options: Pick<ProtoLoadOptions, "includeDirs"> = {},
): Root {
  const protobuf = createRequire(import.meta.url)("protobufjs") as typeof import("protobufjs");
  const root = new protobuf.Root();
  const includeDirs = options.includeDirs ?? [];
  if (includeDirs.length > 0) {
    const resolveRelative = root.resolvePath.bind(root);
    root.resolvePath = (origin, target) => {
      if (isAbsolute(target)) return target;
      for (const dir of includeDirs) {
        const path = join(dir, target);
        if (existsSync(path)) return path;
      }
      return resolveRelative(origin, target);
    };
  }
  try {
    return root.loadSync(typeof files === "string" ? files : [...files]);
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, `protobuf schema: ${messageOf(cause)}`, {
      cause,
    });
  }
}

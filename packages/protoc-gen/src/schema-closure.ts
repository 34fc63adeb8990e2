/**
 * What one generated file needs from a schema: the file's own messages, enums and services, the
 * types they reach, and that part of the schema as protobufjs JSON (type references absolute,
 * `nested` keys sorted, so the same schema read from `.proto` text or from protoc's descriptors
 * gives the same JSON).
 */
import { Code, NearwireError } from "@nearwire/core";
import type { Enum, INamespace, ReflectionObject, Root, Service, Type } from "protobufjs";
import { fullName, isEnum, isNamespace, isService, isType } from "./reflection.js";

/** What a `.proto` file defines, by full name (no leading dot). */
export interface GenerateTarget {
  /**
   * The file's name as protoc names it (relative to its include directory): `greeter.proto`,
   * `acme/v1/greeter.proto`. Written into the header; the output is named after it.
   */
  readonly fileName: string;
  /** The messages and enums the file defines, nested ones included. */
  readonly types: readonly string[];
  /** The services the file defines. */
  readonly services: readonly string[];
}

/** The objects of one generated file, each list sorted by full name. */
export interface Closure {
  /** The messages and enums to declare: the file's own and every one they reach. */
  readonly types: (Type | Enum)[];
  /** The file's services. */
  readonly services: Service[];
}

function lookup(root: Root, name: string): ReflectionObject {
  const found = root.lookup(name);
  if (found === null) throw new NearwireError(Code.NotFound, `protobuf schema has no "${name}"`);
  return found;
}

function byFullName(a: ReflectionObject, b: ReflectionObject): number {
  return a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0;
}

/**
 * The file's types, their field types, their nested types and their enclosing types, to a fixed
 * point; and the file's services' request and response types. A nested type comes with its
 * parent, and a type with all it nests, since protobufjs's JSON of a message holds its nested ones.
 */
export function closure(root: Root, target: GenerateTarget): Closure {
  const seen = new Set<Type | Enum>();
  const work: ReflectionObject[] = target.types.map((name) => lookup(root, name));
  const services = target.services.map((name) => {
    const service = lookup(root, name);
    if (!isService(service))
      throw new NearwireError(Code.InvalidArgument, `"${name}" is not a service`);
    return service;
  });
  for (const service of services)
    for (const method of service.methodsArray)
      work.push(method.resolvedRequestType as Type, method.resolvedResponseType as Type);
  for (let obj = work.pop(); obj !== undefined; obj = work.pop()) {
    if (!(isType(obj) || isEnum(obj)) || seen.has(obj)) continue;
    seen.add(obj);
    if (isType(obj.parent)) work.push(obj.parent);
    if (!isType(obj)) continue;
    for (const field of obj.fieldsArray)
      if (field.resolvedType !== null) work.push(field.resolvedType);
    work.push(...obj.nestedArray);
  }
  return { types: [...seen].sort(byFullName), services: services.sort(byFullName) };
}

/** A copy of `json` with the keys of every `nested` and `oneofs` object in sorted order. */
function sortNested(json: unknown): unknown {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return json;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    // Oneof order differs too: protoc puts the synthetic oneofs of `optional` fields last.
    if ((key === "nested" || key === "oneofs") && typeof value === "object" && value !== null) {
      const nested: Record<string, unknown> = {};
      for (const name of Object.keys(value).sort())
        nested[name] = sortNested((value as Record<string, unknown>)[name]);
      out[key] = nested;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** The JSON object of `ns`'s path from the root, created as needed. */
function namespaceJson(top: INamespace, obj: ReflectionObject): Record<string, unknown> {
  const path: string[] = [];
  for (let ns = obj.parent; ns !== null && ns.parent !== null; ns = ns.parent)
    path.unshift(ns.name);
  let at = top;
  for (const name of path) {
    at.nested ??= {};
    at.nested[name] ??= { nested: {} };
    at = at.nested[name] as INamespace;
  }
  at.nested ??= {};
  return at.nested as Record<string, unknown>;
}

/**
 * The closure as protobufjs JSON (for `Root.fromJSON`). References are made absolute first
 * (`.helloworld.HelloRequest`): `.proto` text gives relative ones, protoc's descriptors absolute
 * ones. Mutates the types' and services' `type`, `requestType` and `responseType`, so call it on
 * a root of its own.
 */
export function closureJson(c: Closure): INamespace {
  for (const type of c.types) {
    if (!isType(type)) continue;
    for (const field of type.fieldsArray)
      if (field.resolvedType !== null) field.type = field.resolvedType.fullName;
  }
  for (const service of c.services) {
    for (const method of service.methodsArray) {
      method.requestType = (method.resolvedRequestType as Type).fullName;
      method.responseType = (method.resolvedResponseType as Type).fullName;
    }
  }
  const top: INamespace = {};
  for (const obj of [...c.types, ...c.services]) {
    // A nested type is written inside its parent's JSON.
    if (isType(obj.parent)) continue;
    namespaceJson(top, obj)[obj.name] = obj.toJSON();
  }
  return sortNested(top) as INamespace;
}

/** The messages, enums and services a root's objects with `filename` define, by full name. */
export function targetOfFile(root: Root, filename: string, fileName: string): GenerateTarget {
  const types: string[] = [];
  const services: string[] = [];
  const visit = (obj: ReflectionObject) => {
    if (obj.filename === filename) {
      if (isType(obj) || isEnum(obj)) types.push(fullName(obj));
      else if (isService(obj)) services.push(fullName(obj));
    }
    if (isNamespace(obj) && !isService(obj)) for (const child of obj.nestedArray) visit(child);
  };
  visit(root);
  return { fileName, types, services };
}

/** Telling protobufjs reflection objects apart, and their names, without `instanceof`. */
import type { Enum, Namespace, ReflectionObject, Service, Type } from "protobufjs";

/** protobufjs names each reflection class in `className` (kept by minifiers, unlike `name`). */
function className(obj: ReflectionObject): string | undefined {
  return (obj.constructor as { className?: string }).className;
}

/** A message type (a proto2 group is one too). */
export function isType(obj: ReflectionObject | null): obj is Type {
  return obj !== null && className(obj) === "Type";
}

/** An enum. */
export function isEnum(obj: ReflectionObject | null): obj is Enum {
  return obj !== null && className(obj) === "Enum";
}

/** A service. */
export function isService(obj: ReflectionObject | null): obj is Service {
  return obj !== null && className(obj) === "Service";
}

/** Anything with nested objects: a root, a package, a message type or a service. */
export function isNamespace(obj: ReflectionObject | null): obj is Namespace {
  return obj !== null && "nestedArray" in obj;
}

/** `.helloworld.HelloRequest` → `helloworld.HelloRequest`. */
export function fullName(obj: ReflectionObject): string {
  return obj.fullName.replace(/^\./, "");
}

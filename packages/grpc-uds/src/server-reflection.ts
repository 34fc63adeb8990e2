/** grpc.reflection.v1 for the services a grpc-uds server serves. */
import type { Server as GrpcJsServer } from "@grpc/grpc-js";
import { ReflectionService } from "@grpc/reflection";
import type { Codec } from "@nearwire/core";

/** A service added to a server, with the codec it was bound with. */
export interface ReflectedService {
  readonly typeName: string;
  readonly codec: Codec;
}

/**
 * Adds gRPC server reflection (`grpc.reflection.v1.ServerReflection` and
 * `grpc.reflection.v1alpha.ServerReflection`, both served by `@grpc/reflection`) to `grpc`,
 * describing the services whose codec has `fileDescriptorProtos()` (the protobuf codec built
 * from a reflection root). Services bound with other codecs are served but not listed; returns
 * the names of the services listed.
 */
export function addServerReflection(
  grpc: GrpcJsServer,
  services: readonly ReflectedService[],
): string[] {
  const listed: string[] = [];
  // @grpc/reflection reads a proto-loader package definition: it only looks at each entry's
  // `fileDescriptorProtos` and indexes every symbol of those files itself.
  const definition: Record<string, { fileDescriptorProtos: Buffer[] }> = {};
  const seen = new Map<Codec, Buffer[]>();
  for (const { typeName, codec } of services) {
    if (typeof codec.fileDescriptorProtos !== "function") continue;
    let files = seen.get(codec);
    if (files === undefined) {
      files = codec
        .fileDescriptorProtos()
        .map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      seen.set(codec, files);
    }
    definition[typeName] = { fileDescriptorProtos: files };
    listed.push(typeName);
  }
  // biome-ignore lint/suspicious/noExplicitAny: proto-loader's PackageDefinition type is wider.
  new ReflectionService(definition as any, { services: listed }).addToServer(grpc);
  return listed;
}

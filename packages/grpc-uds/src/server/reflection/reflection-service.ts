/** gRPC server reflection (v1 and v1alpha) as an ordinary nearwire service. */
import {
  bidiStreaming,
  Code,
  type Codec,
  defineService,
  messageType,
  NearwireError,
  type ServiceDefinition,
} from "@nearwire/core";
import { messageOf } from "@nearwire/core/transport-kit";
import {
  healthFileDescriptor,
  reflectionV1alphaFileDescriptor,
  reflectionV1FileDescriptor,
} from "./builtin-descriptors.js";
import { DescriptorIndex } from "./descriptor-index.js";
import {
  type MessageResponse,
  REFLECTION_PACKAGES,
  reflectionCodec,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from "./reflection-codec.js";

/** A service added to a server, with the codec it was bound with. */
export interface ReflectedService {
  readonly typeName: string;
  readonly codec: Codec;
}

const HEALTH_SERVICE = "grpc.health.v1.Health";

/**
 * The reflection services (v1 and v1alpha) describing `services`, to be served like any other.
 *
 * - `list_services` lists every service of `services` (whatever its codec), plus both
 *   reflection services, sorted.
 * - `file_by_filename`, `file_containing_symbol` and `file_containing_extension` answer the
 *   file and its transitive dependencies (the file first, each once), from the
 *   FileDescriptorProtos of the services' codecs (`codec.fileDescriptorProtos()`, asked once
 *   per codec object), the health service's (`grpc.health.v1.Health`, when it is in
 *   `services`) and the reflection services' own. `all_extension_numbers_of_type` answers the
 *   extension numbers of a message, ascending.
 * - An unknown name is an `error_response` with NOT_FOUND; a request with no field set, one
 *   with INVALID_ARGUMENT. The stream goes on after either.
 *
 * Each response echoes the request and its `host`. The descriptors are indexed on the first
 * request, once, for both versions; a codec's descriptor that does not decode fails the stream
 * with INTERNAL.
 */
export function reflectionServices(
  services: readonly ReflectedService[],
): { definition: ServiceDefinition; impl: object; codec: Codec }[] {
  let index: DescriptorIndex | undefined;
  const names = [
    ...new Set([
      ...services.map((s) => s.typeName),
      ...REFLECTION_PACKAGES.map((pkg) => `${pkg}.ServerReflection`),
    ]),
  ].sort();

  function indexed(): DescriptorIndex {
    if (index !== undefined) return index;
    try {
      index = new DescriptorIndex(descriptorsOf(services));
    } catch (cause) {
      // A codec's own schema that does not decode is the server's fault, not the caller's.
      throw new NearwireError(Code.Internal, `reflection: ${messageOf(cause)}`, { cause });
    }
    return index;
  }

  function answer(request: ServerReflectionRequest): MessageResponse {
    const oneof = request.messageRequest;
    if (oneof === undefined) return error(Code.InvalidArgument, "no message_request field set");
    switch (oneof.case) {
      case "listServices":
        return {
          case: "listServicesResponse",
          value: { service: names.map((name) => ({ name })) },
        };
      case "fileByFilename":
        return files(indexed().fileByName(oneof.value), `file "${oneof.value}" not found`);
      case "fileContainingSymbol":
        return files(
          indexed().fileContainingSymbol(oneof.value),
          `symbol "${oneof.value}" not found`,
        );
      case "fileContainingExtension": {
        const { containingType, extensionNumber } = oneof.value;
        return files(
          indexed().fileContainingExtension(containingType, extensionNumber),
          `extension ${extensionNumber} of "${containingType}" not found`,
        );
      }
      case "allExtensionNumbersOfType": {
        const numbers = indexed().extensionNumbers(oneof.value);
        if (numbers === undefined) return error(Code.NotFound, `type "${oneof.value}" not found`);
        return {
          case: "allExtensionNumbersResponse",
          value: { baseTypeName: oneof.value, extensionNumber: numbers },
        };
      }
    }
  }

  const impl = {
    async *ServerReflectionInfo(
      requests: AsyncIterable<ServerReflectionRequest>,
    ): AsyncIterable<ServerReflectionResponse> {
      for await (const request of requests) {
        yield {
          validHost: request.host,
          originalRequest: request,
          messageResponse: answer(request),
        };
      }
    },
  };

  return REFLECTION_PACKAGES.map((pkg) => ({
    definition: defineService(`${pkg}.ServerReflection`, {
      ServerReflectionInfo: bidiStreaming(
        messageType<ServerReflectionRequest>(`${pkg}.ServerReflectionRequest`),
        messageType<ServerReflectionResponse>(`${pkg}.ServerReflectionResponse`),
      ),
    }),
    impl,
    codec: reflectionCodec,
  }));
}

/** The builtin descriptors, then each distinct codec's, in the order the services came. */
function descriptorsOf(services: readonly ReflectedService[]): Uint8Array[] {
  const out = [reflectionV1FileDescriptor, reflectionV1alphaFileDescriptor];
  if (services.some((s) => s.typeName === HEALTH_SERVICE)) out.push(healthFileDescriptor);
  const seen = new Set<Codec>();
  for (const { codec } of services) {
    if (seen.has(codec)) continue;
    seen.add(codec);
    const files = codec.fileDescriptorProtos?.();
    if (files !== undefined) out.push(...files);
  }
  return out;
}

function files(found: Uint8Array[] | undefined, missing: string): MessageResponse {
  if (found === undefined) return error(Code.NotFound, missing);
  return { case: "fileDescriptorResponse", value: { fileDescriptorProto: found } };
}

function error(code: Code, message: string): MessageResponse {
  return { case: "errorResponse", value: { errorCode: code, errorMessage: message } };
}

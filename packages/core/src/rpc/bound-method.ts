import { Code } from "../code.js";
import type { Codec, MessageCodec } from "../codec.js";
import { NearwireError } from "../nearwire-error.js";
import { type MethodKind, methodPath, type ServiceDefinition } from "../service.js";

/** A method with its codec bound: what the engine needs per call, computed once. */
export interface BoundMethod {
  readonly name: string;
  /** `/package.Service/Method`. */
  readonly path: string;
  readonly pathBytes: Uint8Array;
  readonly kind: MethodKind;
  readonly input: MessageCodec<unknown>;
  readonly output: MessageCodec<unknown>;
}

const utf8 = new TextEncoder();

/** Binds every method of `service` to `codec`. */
export function bindService(service: ServiceDefinition, codec: Codec): BoundMethod[] {
  return Object.entries(service.methods).map(([name, def]) => {
    const path = methodPath(service, name);
    const pathBytes = utf8.encode(path);
    if (pathBytes.byteLength > 255)
      throw new TypeError(`method path ${path} is ${pathBytes.byteLength} B > 255`);
    return {
      name,
      path,
      pathBytes,
      kind: def.kind,
      input: codec.forType(def.input),
      output: codec.forType(def.output),
    };
  });
}

/** Encodes with `codec`, mapping failures to INTERNAL and checking the size limit. */
export function encodeChecked(
  codec: MessageCodec<unknown>,
  value: unknown,
  maxBytes: number,
  what: string,
): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = codec.encode(value);
  } catch (cause) {
    if (cause instanceof NearwireError) throw cause;
    throw new NearwireError(Code.Internal, `${what} encode failed: ${(cause as Error).message}`, {
      cause,
      reason: "encode-failed",
    });
  }
  if (bytes.byteLength > maxBytes) {
    throw new NearwireError(
      Code.ResourceExhausted,
      `${what} ${bytes.byteLength} B > maxMessageBytes ${maxBytes}`,
      {
        reason: "message-too-large",
      },
    );
  }
  return bytes;
}

/**
 * Decodes with `codec`. A view that is only valid during the frame callback is copied first,
 * and only when the codec's decoded values would point into it.
 */
export function decodeChecked(
  codec: MessageCodec<unknown>,
  bytes: Uint8Array,
  transient: boolean,
  maxBytes: number,
  what: string,
): unknown {
  if (bytes.byteLength > maxBytes) {
    throw new NearwireError(
      Code.ResourceExhausted,
      `${what} ${bytes.byteLength} B > maxMessageBytes ${maxBytes}`,
      {
        reason: "message-too-large",
      },
    );
  }
  const input = transient && codec.decodesInPlace ? bytes.slice() : bytes;
  try {
    return codec.decode(input);
  } catch (cause) {
    if (cause instanceof NearwireError) throw cause;
    throw new NearwireError(
      Code.InvalidArgument,
      `${what} decode failed: ${(cause as Error).message}`,
      {
        cause,
        reason: "decode-failed",
      },
    );
  }
}

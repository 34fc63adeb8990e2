/** The messages of grpc.health.v1.Health and their protobuf wire codec. */
import { Code } from "../code.js";
import { type Codec, createCodec, type MessageCodec } from "../codec.js";
import { NearwireError } from "../nearwire-error.js";

/** `grpc.health.v1.HealthCheckResponse.ServingStatus`, numbered as on the wire. */
export const ServingStatus = {
  UNKNOWN: 0,
  SERVING: 1,
  NOT_SERVING: 2,
  /** Only sent by Watch, for a service the server does not know (yet). */
  SERVICE_UNKNOWN: 3,
} as const;

/** One of the {@link ServingStatus} values (an unknown enum number decodes as itself). */
export type ServingStatusValue = (typeof ServingStatus)[keyof typeof ServingStatus];

/** `grpc.health.v1.HealthCheckRequest`: `string service = 1` ("" is the whole server). */
export interface HealthCheckRequest {
  service: string;
}

/** `grpc.health.v1.HealthCheckResponse`: `ServingStatus status = 1`. */
export interface HealthCheckResponse {
  status: ServingStatusValue;
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();

function decodeFailed(type: string, what: string): NearwireError {
  return new NearwireError(Code.InvalidArgument, `${type}: ${what}`, { reason: "decode-failed" });
}

/** Bytes of a varint (at most 5 are needed for the values written here). */
function varintLength(value: number): number {
  let n = 1;
  for (let v = value >>> 7; v !== 0; v >>>= 7) n++;
  return n;
}

function writeVarint(dest: Uint8Array, offset: number, value: number): number {
  let v = value >>> 0;
  while (v > 0x7f) {
    dest[offset++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  dest[offset++] = v;
  return offset;
}

/** A small protobuf reader: varints (low 32 bits kept), lengths, unknown fields skipped. */
class Reader {
  pos = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly type: string,
  ) {}

  /** Reads a varint of up to 10 bytes and returns its low 32 bits, unsigned. */
  varint(): number {
    let low = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.bytes.length) throw decodeFailed(this.type, "truncated varint");
      const b = this.bytes[this.pos++] as number;
      if (i < 5) low = (low | ((b & 0x7f) << (7 * i))) >>> 0;
      if ((b & 0x80) === 0) return low;
    }
    throw decodeFailed(this.type, "varint over 10 bytes");
  }

  /** A length-delimited field's bytes. */
  chunk(): Uint8Array {
    const length = this.varint();
    if (length > this.bytes.length - this.pos) throw decodeFailed(this.type, "truncated field");
    const out = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0:
        this.varint();
        return;
      case 1:
        this.advance(8);
        return;
      case 2:
        this.chunk();
        return;
      case 5:
        this.advance(4);
        return;
      default:
        throw decodeFailed(this.type, `unsupported wire type ${wireType}`);
    }
  }

  private advance(n: number): void {
    if (n > this.bytes.length - this.pos) throw decodeFailed(this.type, "truncated field");
    this.pos += n;
  }
}

const requestCodec: MessageCodec<HealthCheckRequest> = {
  decodesInPlace: false,
  encode({ service }) {
    if (service === "") return new Uint8Array(0);
    const text = utf8Encoder.encode(service);
    const out = new Uint8Array(1 + varintLength(text.length) + text.length);
    out[0] = 0x0a; // field 1, wire type 2
    out.set(text, writeVarint(out, 1, text.length));
    return out;
  },
  decode(bytes) {
    const reader = new Reader(bytes, "grpc.health.v1.HealthCheckRequest");
    let service = "";
    while (reader.pos < bytes.length) {
      const tag = reader.varint();
      if (tag === 0x0a) {
        try {
          service = utf8Decoder.decode(reader.chunk());
        } catch (err) {
          if (err instanceof NearwireError) throw err;
          throw decodeFailed(reader.type, "service is not valid UTF-8");
        }
      } else {
        reader.skip(tag & 7);
      }
    }
    return { service };
  },
};

const responseCodec: MessageCodec<HealthCheckResponse> = {
  decodesInPlace: false,
  encode({ status }) {
    if (status === 0) return new Uint8Array(0);
    // An enum is an int32: a negative one takes 10 bytes; ServingStatus has none.
    const out = new Uint8Array(1 + varintLength(status));
    out[0] = 0x08; // field 1, wire type 0
    writeVarint(out, 1, status);
    return out;
  },
  decode(bytes) {
    const reader = new Reader(bytes, "grpc.health.v1.HealthCheckResponse");
    let status = 0;
    while (reader.pos < bytes.length) {
      const tag = reader.varint();
      if (tag === 0x08) status = reader.varint() | 0;
      else reader.skip(tag & 7);
    }
    return { status: status as ServingStatusValue };
  },
};

/**
 * The codec of the health service's two messages, in the protobuf wire format of
 * `grpc/health/v1/health.proto` (so stock gRPC health clients and probes understand it),
 * hand-written so that `@nearwire/core` stays free of dependencies. Bind the health service
 * with this codec whatever codec the other services use. Decode failures are INVALID_ARGUMENT
 * `decode-failed`; unknown fields are skipped.
 */
export const healthCodec: Codec = createCodec("protobuf", {
  "grpc.health.v1.HealthCheckRequest": requestCodec as MessageCodec<unknown>,
  "grpc.health.v1.HealthCheckResponse": responseCodec as MessageCodec<unknown>,
});

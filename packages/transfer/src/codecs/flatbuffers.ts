import type { FlatbuffersTable, FlatbuffersVerifier } from "@nearwire/codec-flatbuffers";
import { createFlatbuffersCodec } from "@nearwire/codec-flatbuffers";
import type { Codec } from "@nearwire/core";
import { Code, NearwireError } from "@nearwire/core";
import type { Builder, ByteBuffer } from "flatbuffers";

/*
 * The transfer messages as the FlatBuffers tables of schema/transfer.fbs, read and written by
 * slot with the `flatbuffers` runtime (the tables are flat: a list of fields is all a table
 * needs, so there is no flatc-generated code). Absent fields decode as their defaults (0, false,
 * "", empty), which is also what the builder leaves out. Bytes fields are views of the input.
 */

type Kind = "string" | "int64" | "uint32" | "bool" | "bytes";
type Fields = ReadonlyArray<readonly [name: string, kind: Kind]>;

const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The fields of each table, in slot order (as in schema/transfer.fbs, camelCase). */
const schema: Record<string, Fields> = {
  StatusRequest: [["name", "string"]],
  StatusReply: [
    ["committed", "bool"],
    ["sizeBytes", "int64"],
    ["partialBytes", "int64"],
    ["partialSizeBytes", "int64"],
    ["active", "bool"],
  ],
  UploadChunk: [
    ["name", "string"],
    ["sizeBytes", "int64"],
    ["offsetBytes", "int64"],
    ["data", "bytes"],
    ["crc32c", "uint32"],
    ["last", "bool"],
    ["sha256", "bytes"],
  ],
  UploadReply: [
    ["committed", "bool"],
    ["sizeBytes", "int64"],
    ["sha256", "bytes"],
  ],
  DownloadRequest: [
    ["name", "string"],
    ["offsetBytes", "int64"],
    ["prefixSha256", "bytes"],
    ["chunkBytes", "uint32"],
  ],
  DownloadChunk: [
    ["offsetBytes", "int64"],
    ["data", "bytes"],
    ["crc32c", "uint32"],
    ["sizeBytes", "int64"],
    ["last", "bool"],
    ["sha256", "bytes"],
  ],
};

const INLINE_BYTES: Record<Kind, number> = { string: 4, bytes: 4, int64: 8, uint32: 4, bool: 1 };

function table(fields: Fields): FlatbuffersTable<unknown> {
  return {
    encode(b: Builder, value: unknown): number {
      const v = value as Record<string, unknown>;
      // Strings and vectors first: they cannot be written inside a table under construction.
      const offsets = fields.map(([name, kind]) => {
        if (kind === "string") return b.createString(String(v[name] ?? ""));
        if (kind === "bytes") {
          const bytes = v[name];
          return b.createByteVector(bytes instanceof Uint8Array ? bytes : EMPTY);
        }
        return 0;
      });
      b.startObject(fields.length);
      fields.forEach(([name, kind], slot) => {
        const x = v[name];
        switch (kind) {
          case "string":
          case "bytes":
            b.addFieldOffset(slot, offsets[slot] as number, 0);
            break;
          case "int64": {
            const n = Number(x ?? 0);
            if (!Number.isSafeInteger(n) || n < -1)
              throw new NearwireError(Code.Internal, `${name} ${n} is not -1 or a safe integer`, {
                reason: "encode-failed",
              });
            b.addFieldInt64(slot, BigInt(n), BigInt(0));
            break;
          }
          case "uint32":
            b.addFieldInt32(slot, Number(x ?? 0) | 0, 0);
            break;
          case "bool":
            b.addFieldInt8(slot, x === true ? 1 : 0, 0);
            break;
        }
      });
      return b.endObject();
    },
    decode(bb: ByteBuffer): unknown {
      const pos = bb.readInt32(bb.position()) + bb.position();
      const out: Record<string, unknown> = {};
      // biome-ignore lint/complexity/noExcessiveCognitiveComplexity: one branch per FlatBuffers field kind of the transfer schema
      fields.forEach(([name, kind], slot) => {
        const off = bb.__offset(pos, 4 + 2 * slot);
        switch (kind) {
          case "string": {
            if (off === 0) {
              out[name] = "";
              break;
            }
            const at = bb.__vector(pos + off);
            out[name] = decodeUtf8(bb.bytes().subarray(at, at + bb.__vector_len(pos + off)));
            break;
          }
          case "bytes": {
            if (off === 0) {
              out[name] = EMPTY;
              break;
            }
            const at = bb.__vector(pos + off);
            out[name] = bb.bytes().subarray(at, at + bb.__vector_len(pos + off));
            break;
          }
          case "int64": {
            const n = off === 0 ? 0n : bb.readInt64(pos + off);
            if (n < -1n || n > 9007199254740991n)
              throw new NearwireError(Code.InvalidArgument, `${name} ${n} out of range`, {
                reason: "decode-failed",
              });
            out[name] = Number(n);
            break;
          }
          case "uint32":
            out[name] = off === 0 ? 0 : bb.readUint32(pos + off);
            break;
          case "bool":
            out[name] = off === 0 ? false : bb.readInt8(pos + off) !== 0;
            break;
        }
      });
      return out;
    },
    verify(v: FlatbuffersVerifier, t: number): void {
      fields.forEach(([, kind], slot) => {
        const voffset = 4 + 2 * slot;
        if (kind === "string") v.string(t, voffset);
        else if (kind === "bytes") v.vector(t, voffset, 1);
        else v.field(t, voffset, INLINE_BYTES[kind]);
      });
    },
  };
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch (cause) {
    throw new NearwireError(Code.InvalidArgument, "flatbuffers string is not UTF-8", {
      cause,
      reason: "decode-failed",
    });
  }
}

/** The FlatBuffers tables of the transfer messages, keyed by full message name. */
export const transferFlatbuffersTables: Record<
  string,
  FlatbuffersTable<unknown>
> = Object.fromEntries(
  Object.entries(schema).map(([name, fields]) => [`nearwire.transfer.${name}`, table(fields)]),
);

/** A FlatBuffers codec of the transfer messages (schema/transfer.fbs). */
export function createTransferFlatbuffersCodec(): Codec {
  return createFlatbuffersCodec(transferFlatbuffersTables);
}

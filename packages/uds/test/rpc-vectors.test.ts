import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import {
  decodeRequestFrame,
  field,
  hex,
  readVectors,
  type ServerProcess,
  startServerProcess,
  type Vector,
} from "@nearwire/conformance";
import { Code } from "@nearwire/core";
import {
  decodeCancel,
  decodeCredit,
  decodeStatus,
  encodeRequest,
  encodeStatus,
  FLAG_END_STREAM,
  FrameType,
  readCallId,
} from "@nearwire/core/protocol";
import { encodeFrame } from "@nearwire/frame";
import { tempDir } from "./support/channels.js";

const vectors = [...readVectors().values()].filter((v) => v.name.startsWith("rpc-"));
const utf8 = new TextEncoder();
const hexOf = hex;
const text = (v: Vector, key: string) => utf8.encode(field(v, key));
const num = (v: Vector, key: string) => Number(field(v, key));

describe("PROTOCOL.md §5 vectors", () => {
  it("has the vectors this test expects", () => {
    assert.ok(vectors.length >= 10, `found ${vectors.length} rpc vectors`);
  });

  for (const v of vectors.filter((x) => x.fields.has("payload"))) {
    it(`${v.name}: payload decodes to its fields, and the frame wraps it`, () => {
      const type = Number(field(v, "type"));
      const payload = hexOf(v, "payload");
      assert.deepEqual(new Uint8Array(encodeFrame(type, payload)), hexOf(v, "frame"));
      assert.equal(readCallId(payload, "vector"), num(v, "call-id"));
      const metaOf = (prefix: string) => {
        const md: Record<string, string> = {};
        for (const [k, val] of v.fields) if (k.startsWith(prefix)) md[k.slice(prefix.length)] = val;
        return Object.keys(md).length > 0 ? md : undefined;
      };
      switch (type) {
        case FrameType.Request: {
          const r = decodeRequestFrame(payload);
          assert.equal(r.flags, Number(field(v, "flags")));
          assert.equal(r.timeoutMs, num(v, "timeout-ms"));
          assert.equal(r.method, field(v, "method"));
          assert.deepEqual(r.metadata, metaOf("metadata-"));
          assert.deepEqual(r.message, text(v, "message-text"));
          const again = encodeRequest(
            r.callId,
            r.flags,
            r.timeoutMs,
            utf8.encode(r.method),
            r.metadata,
            r.message,
          );
          assert.deepEqual(again, payload);
          break;
        }
        case FrameType.Status: {
          const s = decodeStatus(payload);
          assert.equal(s.code, num(v, "code"));
          assert.equal(s.detail, field(v, "detail"));
          assert.deepEqual(s.trailers, metaOf("trailer-"));
          if (v.fields.has("message-text")) assert.deepEqual(s.message, text(v, "message-text"));
          else assert.equal(s.message, undefined);
          assert.deepEqual(
            encodeStatus(s.callId, s.code, s.detail, s.trailers, s.message),
            payload,
          );
          break;
        }
        case FrameType.Message:
          assert.deepEqual(payload.subarray(4), text(v, "message-text"));
          break;
        case FrameType.End:
          assert.equal(payload.byteLength, 4);
          break;
        case FrameType.Cancel:
          assert.deepEqual(decodeCancel(payload), {
            callId: num(v, "call-id"),
            code: num(v, "code"),
          });
          break;
        case FrameType.Credit:
          assert.deepEqual(decodeCredit(payload), {
            callId: num(v, "call-id"),
            credit: num(v, "credit"),
          });
          break;
        default:
          assert.fail(`unexpected type ${type}`);
      }
    });
  }
});

describe("PROTOCOL.md §5.9 rpc-unary-exchange against a real server process", () => {
  const tmp = tempDir();
  const address = tmp.path("greeter.sock");
  let server: ServerProcess;
  before(async () => {
    server = await startServerProcess(new URL("./fixtures/greeter-server.ts", import.meta.url), [
      address,
    ]);
  });
  after(async () => {
    await server.stop();
    tmp.cleanup();
  });

  it("answers the vector's client bytes with exactly its server bytes", async () => {
    const v = readVectors().get("rpc-unary-exchange") as Vector;
    const expected = Buffer.from(hexOf(v, "server-stream"));
    const sock = net.connect(address);
    const got: Buffer[] = [];
    let len = 0;
    await new Promise<void>((resolve, reject) => {
      sock.on("data", (d: Buffer) => {
        got.push(d);
        len += d.length;
        if (len >= expected.length) resolve();
      });
      sock.on("error", reject);
      sock.write(hexOf(v, "client-stream"));
      setTimeout(() => reject(new Error(`only ${len} of ${expected.length} bytes`)), 5000).unref();
    });
    sock.destroy();
    assert.equal(Buffer.concat(got).toString("hex"), expected.toString("hex"));
  });

  it("an error reply: an empty name gets INVALID_ARGUMENT on the wire", async () => {
    const req = encodeRequest(
      9,
      FLAG_END_STREAM,
      0,
      utf8.encode("/nearwire.example.Greeter/Say"),
      undefined,
      utf8.encode('{"name":""}'),
    );
    const v = readVectors().get("rpc-unary-exchange") as Vector;
    const hello = hexOf(v, "client-stream").subarray(0, 25);
    const sock = net.connect(address);
    const chunks: Buffer[] = [];
    await new Promise<void>((resolve, reject) => {
      sock.on("data", (d: Buffer) => {
        chunks.push(d);
        if (Buffer.concat(chunks).length >= 25 + 9 + 8) resolve();
      });
      sock.on("error", reject);
      sock.write(Buffer.concat([hello, encodeFrame(FrameType.Request, req)]));
      setTimeout(() => reject(new Error("no reply")), 5000).unref();
    });
    const all = Buffer.concat(chunks);
    await new Promise((r) => setTimeout(r, 20));
    sock.destroy();
    const frame = all.subarray(25);
    assert.equal(frame[4], FrameType.Status);
    const status = decodeStatus(frame.subarray(5, 5 + frame.readUInt32BE(0)));
    assert.equal(status.callId, 9);
    assert.equal(status.code, Code.InvalidArgument);
  });
});

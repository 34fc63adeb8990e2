import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import {
  field,
  hex,
  readVectors,
  type ServerProcess,
  startServerProcess,
  type Vector,
} from "@nearwire/conformance";
import { decodeStatus, FrameType } from "@nearwire/core/protocol";
import {
  decodeGoAway,
  decodeHello,
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  FrameDecoder,
} from "@nearwire/frame";
import { tempDir } from "./support/channels.js";

/**
 * PROTOCOL.md §5.10: every `rule-*` vector replayed to a real uds server (the Greeter fixture,
 * with `Say` and `Hold`) after the preface, and every `batch-rule-*` vector (its own
 * `client-stream`, HELLO included); the server's STATUSes and GOAWAY must be the vector's, and
 * a connection the vector keeps open must still be open.
 */
const all = readVectors();
const rules = [...all.values()].filter((v) => v.name.startsWith("rule-"));
const batchRules = [...all.values()].filter((v) => v.name.startsWith("batch-rule-"));
const clientHello = hex(all.get("rpc-unary-exchange") as Vector, "client-stream").subarray(0, 25);

interface Outcome {
  statuses: string[];
  goaway: number | undefined;
  open: boolean;
  /** The features of the server's HELLO (undefined: a 16-byte HELLO). */
  serverFeatures: number | undefined;
}

/** The frames of `bytes`, each whole (u32 length, type, payload, CRC-32C: PROTOCOL.md §1). */
function splitFrames(bytes: Uint8Array): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
    frames.push(bytes.subarray(at, at + 9 + n));
    at += 9 + n;
  }
  return frames;
}

/**
 * Writes the preface and `frames` (in one write, or one frame at a time 5 ms apart), then
 * collects what the server answers.
 */
function replay(
  address: string,
  hello: Uint8Array,
  frames: Uint8Array,
  expected: number,
  oneAtATime: boolean,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const out: Outcome = { statuses: [], goaway: undefined, open: true, serverFeatures: undefined };
    let sawHello = false;
    /** Set once every frame is written: only then may the settle timer end the replay. */
    let allWritten = !oneAtATime;
    let settle: NodeJS.Timeout | undefined;
    const sock = net.connect(address);
    const finish = () => {
      clearTimeout(guard);
      clearTimeout(settle);
      sock.destroy();
      resolve(out);
    };
    const decoder = new FrameDecoder({
      maxPayloadBytes: 1 << 20,
      onFrame: (type, payload) => {
        if (!sawHello) {
          assert.equal(type, FrameType.Hello, "the server's first frame");
          out.serverFeatures = decodeHello(payload).features;
          sawHello = true;
          return;
        }
        if (type === FrameType.Status) {
          const s = decodeStatus(payload);
          out.statuses.push(`${s.callId}:${s.code}`);
        } else if (type === FrameType.GoAway) {
          out.goaway = decodeGoAway(payload).code;
        } else {
          reject(new Error(`unexpected frame type 0x${type.toString(16)}`));
        }
        // Everything expected is in: give the server a moment to say more, then look.
        if (allWritten && out.statuses.length >= expected && out.goaway === undefined) {
          clearTimeout(settle);
          settle = setTimeout(finish, 50);
        }
      },
    });
    sock.on("data", (d: Buffer) => decoder.push(d));
    sock.on("error", reject);
    sock.on("close", () => {
      out.open = false;
      finish();
    });
    if (oneAtATime) {
      sock.write(hello);
      void (async () => {
        for (const frame of splitFrames(frames)) {
          await new Promise((r) => setTimeout(r, 5));
          if (sock.destroyed) return;
          sock.write(frame);
        }
        allWritten = true;
        // Give the server a moment for what the last frame causes, then look.
        settle = setTimeout(finish, expected === 0 ? 300 : 100);
      })();
    } else {
      sock.write(Buffer.concat([hello, frames]));
      if (expected === 0) settle = setTimeout(finish, 300);
    }
    const guard = setTimeout(() => reject(new Error("no answer within 5 s")), 5000);
  });
}

describe("PROTOCOL.md §5.10 receiver rules, replayed to a uds server", () => {
  const tmp = tempDir();
  const address = tmp.path("rules.sock");
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

  it("has the rule vectors", () => {
    assert.ok(rules.length >= 13, `found ${rules.length} rule vectors`);
  });

  it("has the BATCH rule vectors", () => {
    assert.ok(batchRules.length >= 8, `found ${batchRules.length} batch-rule vectors`);
  });

  for (const v of [...rules, ...batchRules]) {
    for (const oneAtATime of [false, true])
      it(`${v.name} (${oneAtATime ? "one frame at a time" : "in one write"})`, async () => {
        const statuses = field(v, "statuses")
          .split(" ")
          .filter((x) => x.length > 0);
        const goaway = field(v, "goaway");
        let hello = clientHello;
        let frames: Uint8Array;
        if (v.name.startsWith("batch-rule-")) {
          [hello] = splitFrames(hex(v, "client-stream")) as [Uint8Array];
          frames = hex(v, "client-stream").subarray(hello.byteLength);
        } else frames = hex(v, "client-frames");
        const got = await replay(address, hello, frames, statuses.length, oneAtATime);
        // The server answers a features field with its own (BATCH and CREDIT_BYTES: an RPC
        // server offers both), and a HELLO without one with none (§4.1).
        const asked = decodeHello(hello.subarray(5, hello.byteLength - 4)).features;
        assert.equal(
          got.serverFeatures,
          asked === undefined ? undefined : FEATURE_BATCH | FEATURE_CREDIT_BYTES,
        );
        assert.deepEqual(got.statuses, statuses, "STATUSes");
        if (goaway === "none") {
          assert.equal(got.goaway, undefined, "no GOAWAY");
          assert.equal(got.open, true, "the connection stays open");
        } else {
          assert.equal(got.goaway, Number(goaway), "GOAWAY code");
        }
      });
  }
});

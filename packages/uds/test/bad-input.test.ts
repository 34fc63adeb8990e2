import assert from "node:assert/strict";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { field, inputBytes, readVectors, type Vector } from "@nearwire/conformance";
import { type Channel, Code, NearwireError } from "@nearwire/core";
import { FrameType } from "@nearwire/core/protocol";
import { decodeGoAway, encodeFrame, encodeHello, FrameDecoder } from "@nearwire/frame";
import { createUdsChannelProvider } from "../src/index.js";
import {
  assertCode,
  connectedPair,
  type Recorder,
  rawConnect,
  record,
  rejection,
  tempDir,
} from "./support/channels.js";

const tmp = tempDir();
const path = tmp.path("bad.sock");
const rejected: NearwireError[] = [];
const accepted: { channel: Channel; rec: Recorder }[] = [];
const provider = createUdsChannelProvider({
  address: path,
  handshakeTimeoutMs: 500,
  onRejected: (err) => rejected.push(err),
});
let listener: Awaited<ReturnType<typeof provider.listen>>;
let good: Channel;
let goodRec: Recorder;

before(async () => {
  listener = await provider.listen((channel) => {
    const rec = record(channel);
    accepted.push({ channel, rec });
    // Echo application frames, so that the good connection can prove it still works.
    const onFrame = rec.onFrame.bind(rec);
    rec.onFrame = (type, payload) => {
      onFrame(type, payload);
      channel.send(type, payload);
    };
  });
  good = await createUdsChannelProvider({ address: path }).connect();
  goodRec = record(good);
});

after(async () => {
  await good.close();
  await listener.close();
  for (const { channel } of accepted) await channel.close();
  tmp.cleanup();
});

/** The good connection still round-trips a frame, and its server side is still open. */
async function goodStillWorks(): Promise<void> {
  const n = goodRec.frames.length;
  good.send(0x90, new Uint8Array([n & 0xff]));
  await goodRec.until(() => goodRec.frames.length === n + 1, 5000, "echo on the good connection");
  assert.equal(goodRec.frames[n]?.payload[0], n & 0xff);
  assert.equal(good.closed, false);
  assert.equal(accepted[0]?.channel.closed, false);
}

/** Every frame a raw peer received; the last must be GOAWAY with `code`, then the stream closed. */
async function expectGoAway(
  raw: Awaited<ReturnType<typeof rawConnect>>,
  code: Code,
): Promise<void> {
  await raw.ended;
  const frames: { type: number; payload: Uint8Array }[] = [];
  new FrameDecoder({ onFrame: (type, payload) => frames.push({ type, payload }) }).push(
    raw.received(),
  );
  const last = frames.at(-1);
  assert.ok(last !== undefined, "no frame before close");
  assert.equal(last.type, FrameType.GoAway);
  assert.equal(decodeGoAway(last.payload).code, code);
}

async function preface(raw: Awaited<ReturnType<typeof rawConnect>>): Promise<void> {
  raw.socket.write(encodeFrame(FrameType.Hello, encodeHello({ version: 1, maxFrameBytes: 65536 })));
  const deadline = Date.now() + 5000;
  while (raw.received().length < 25 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 5));
  assert.equal(raw.received().length, 25, "server HELLO");
}

async function lastRejection(count: number): Promise<NearwireError> {
  const deadline = Date.now() + 5000;
  while (rejected.length < count && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 5));
  assert.equal(rejected.length, count);
  return rejected[count - 1] as NearwireError;
}

async function lastAcceptedClose(): Promise<NearwireError | undefined> {
  const last = accepted.at(-1);
  assert.ok(last !== undefined);
  return last.rec.closed();
}

describe("bad input on the listener (the good connection keeps working)", () => {
  it("an HTTP request → GOAWAY INVALID_ARGUMENT bad-preface after its first 4 bytes (vector reject-http-request)", async () => {
    const v = readVectors().get("reject-http-request") as Vector;
    const code = Number(field(v, "code")) as Code;
    const raw = await rawConnect({ path });
    const input = inputBytes(v);
    raw.socket.write(input.subarray(0, Number(field(v, "reject-after-bytes"))));
    await expectGoAway(raw, code);
    assertCode(await lastRejection(1), code, field(v, "reason"));
    await goodStillWorks();
  });

  it("4 bytes of garbage length alone are enough to be rejected", async () => {
    const raw = await rawConnect({ path });
    // 4097: above 64, and too long for an shm-ring handshake (65-4096 waits for a 5th byte).
    raw.socket.write(Buffer.from([0x00, 0x00, 0x10, 0x01]));
    await expectGoAway(raw, Code.InvalidArgument);
    assertCode(await lastRejection(2), Code.InvalidArgument, "bad-preface");
    await goodStillWorks();
  });

  it("a first frame that is not HELLO → bad-preface", async () => {
    const raw = await rawConnect({ path });
    raw.socket.write(encodeFrame(0x80, new Uint8Array(8)));
    await expectGoAway(raw, Code.InvalidArgument);
    assertCode(await lastRejection(3), Code.InvalidArgument, "bad-preface");
    await goodStillWorks();
  });

  it("a HELLO with the wrong magic → bad-preface", async () => {
    const raw = await rawConnect({ path });
    const hello = encodeHello({ version: 1, maxFrameBytes: 65536 });
    hello[0] = 0x58;
    raw.socket.write(encodeFrame(FrameType.Hello, hello));
    await expectGoAway(raw, Code.InvalidArgument);
    assertCode(await lastRejection(4), Code.InvalidArgument, "bad-preface");
    await goodStillWorks();
  });

  it("a HELLO of version 2 → GOAWAY FAILED_PRECONDITION version-mismatch", async () => {
    const raw = await rawConnect({ path });
    raw.socket.write(
      encodeFrame(FrameType.Hello, encodeHello({ version: 2, maxFrameBytes: 65536 })),
    );
    await expectGoAway(raw, Code.FailedPrecondition);
    assertCode(await lastRejection(5), Code.FailedPrecondition, "version-mismatch");
    await goodStillWorks();
  });

  it("a peer that connects and says nothing gets GOAWAY UNAVAILABLE after handshakeTimeoutMs (§4.2)", async () => {
    const raw = await rawConnect({ path });
    await expectGoAway(raw, Code.Unavailable);
    assertCode(await lastRejection(6), Code.Unavailable);
    await goodStillWorks();
  });

  it("after the preface: a corrupt CRC → DATA_LOSS crc-mismatch on both sides", async () => {
    const raw = await rawConnect({ path });
    await preface(raw);
    const frame = encodeFrame(0x80, new Uint8Array([1, 2, 3]));
    frame[frame.length - 1] = (frame[frame.length - 1] as number) ^ 1;
    raw.socket.write(frame);
    await expectGoAway(raw, Code.DataLoss);
    assertCode(await lastAcceptedClose(), Code.DataLoss, "crc-mismatch");
    await goodStillWorks();
  });

  it("after the preface: an oversized length → RESOURCE_EXHAUSTED frame-too-large", async () => {
    const raw = await rawConnect({ path });
    await preface(raw);
    raw.socket.write(Buffer.from([0x00, 0x40, 0x00, 0x01])); // 4 MiB + 1
    await expectGoAway(raw, Code.ResourceExhausted);
    assertCode(await lastAcceptedClose(), Code.ResourceExhausted, "frame-too-large");
    await goodStillWorks();
  });

  for (const type of [0x00, 0x03, 0x0f]) {
    it(`after the preface: reserved control type 0x${type.toString(16)} → INTERNAL unknown-frame-type`, async () => {
      const raw = await rawConnect({ path });
      await preface(raw);
      raw.socket.write(encodeFrame(type, new Uint8Array(0)));
      await expectGoAway(raw, Code.Internal);
      assertCode(await lastAcceptedClose(), Code.Internal, "unknown-frame-type");
      await goodStillWorks();
    });
  }

  it("after the preface: a second HELLO → INTERNAL protocol-violation", async () => {
    const raw = await rawConnect({ path });
    await preface(raw);
    raw.socket.write(
      encodeFrame(FrameType.Hello, encodeHello({ version: 1, maxFrameBytes: 65536 })),
    );
    await expectGoAway(raw, Code.Internal);
    assertCode(await lastAcceptedClose(), Code.Internal, "protocol-violation");
    await goodStillWorks();
  });

  it("frames sent before the bad one are delivered, in order", async () => {
    const raw = await rawConnect({ path });
    await preface(raw);
    raw.socket.write(
      Buffer.concat([encodeFrame(0x80, new Uint8Array([7])), encodeFrame(0x03, new Uint8Array(0))]),
    );
    await expectGoAway(raw, Code.Internal);
    const last = accepted.at(-1);
    assert.deepEqual(
      last?.rec.frames.map((f) => [f.type, ...f.payload]),
      [[0x80, 7]],
    );
    await goodStillWorks();
  });
});

describe("bad answers to a client", () => {
  async function rawServer(
    answer: (socket: net.Socket) => void,
  ): Promise<{ address: string; close(): Promise<void> }> {
    const p = tmp.path(`raw-${Math.random().toString(36).slice(2)}.sock`);
    const sockets = new Set<net.Socket>();
    const server = net.createServer((s) => {
      sockets.add(s);
      s.on("error", () => {});
      s.once("data", () => answer(s));
    });
    await new Promise<void>((r) => server.listen(p, r));
    return {
      address: p,
      close: () =>
        new Promise<void>((r) => {
          for (const s of sockets) s.destroy();
          server.close(() => r());
        }),
    };
  }

  it("server HELLO of version 2 → FAILED_PRECONDITION version-mismatch, and the client says GOAWAY", async () => {
    const got: Buffer[] = [];
    const srv = await rawServer((s) => {
      s.on("data", (d: Buffer) => got.push(d));
      s.write(encodeFrame(FrameType.Hello, encodeHello({ version: 2, maxFrameBytes: 65536 })));
    });
    try {
      assertCode(
        await rejection(createUdsChannelProvider({ address: srv.address }).connect()),
        Code.FailedPrecondition,
        "version-mismatch",
      );
      await new Promise((r) => setTimeout(r, 50));
      const frames: number[] = [];
      new FrameDecoder({
        onFrame: (t, p) =>
          frames.push(t === FrameType.GoAway ? (decodeGoAway(p).code << 8) | t : t),
      }).push(Buffer.concat(got));
      assert.deepEqual(frames, [(Code.FailedPrecondition << 8) | FrameType.GoAway]);
    } finally {
      await srv.close();
    }
  });

  it("server GOAWAY → the GOAWAY's code", async () => {
    const srv = await rawServer((s) =>
      s.end(encodeFrame(FrameType.GoAway, new Uint8Array([Code.ResourceExhausted, 0x21]))),
    );
    try {
      assertCode(
        await rejection(createUdsChannelProvider({ address: srv.address }).connect()),
        Code.ResourceExhausted,
      );
    } finally {
      await srv.close();
    }
  });

  it("server GOAWAY with an empty payload → read as UNKNOWN (§4.1)", async () => {
    const srv = await rawServer((s) => s.end(encodeFrame(FrameType.GoAway, new Uint8Array(0))));
    try {
      assertCode(
        await rejection(createUdsChannelProvider({ address: srv.address }).connect()),
        Code.Unknown,
      );
    } finally {
      await srv.close();
    }
  });

  it("server speaking HTTP → INVALID_ARGUMENT bad-preface", async () => {
    const srv = await rawServer((s) => s.write("HTTP/1.1 400 Bad Request\r\n\r\n"));
    try {
      assertCode(
        await rejection(createUdsChannelProvider({ address: srv.address }).connect()),
        Code.InvalidArgument,
        "bad-preface",
      );
    } finally {
      await srv.close();
    }
  });

  it("silent server → UNAVAILABLE after handshakeTimeoutMs", async () => {
    const srv = await rawServer(() => {});
    try {
      assertCode(
        await rejection(
          createUdsChannelProvider({ address: srv.address, handshakeTimeoutMs: 200 }).connect(),
        ),
        Code.Unavailable,
      );
    } finally {
      await srv.close();
    }
  });
});

describe("close semantics between two channels", () => {
  it("close(err) on one side: the other side's onClose gets the GOAWAY's code", async () => {
    const { client, server, listener: l } = await connectedPair(tmp.path("close1.sock"));
    const crec = record(client);
    const srec = record(server);
    await server.close(new NearwireError(Code.Aborted, "aborting"));
    assertCode(await crec.closed(), Code.Aborted);
    assertCode(await srec.closed(), Code.Aborted);
    await l.close();
  });

  it("clean close(): queued frames are flushed first; the closer sees undefined, the other side peer-closed", async () => {
    const { client, server, listener: l } = await connectedPair(tmp.path("close2.sock"));
    const crec = record(client);
    const srec = record(server);
    for (let i = 0; i < 1000; i++) server.send(0x80, new Uint8Array([i & 0xff]));
    const closing = server.close();
    assert.equal(server.closed, true);
    await closing;
    assert.equal(await srec.closed(), undefined);
    assertCode(await crec.closed(), Code.Unavailable, "peer-closed");
    assert.equal(crec.frames.length, 1000);
    assert.equal(crec.closeCount, 1);
    assert.equal(srec.closeCount, 1);
    await l.close();
  });
});

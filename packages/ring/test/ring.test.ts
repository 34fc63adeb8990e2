import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { checkSeq, seqFrame } from "@nearwire/conformance/seq-frames";
import { Code, type NearwireError } from "@nearwire/core";
import {
  checkHeader,
  HEADER_BYTES,
  LAYOUT_VERSION,
  maxPayloadFor,
  RingReader,
  RingWriter,
  readHeader,
  segmentBytesFor,
  writeHeader,
} from "../src/index.js";

const RING = 4096;

/** A segment of two rings in a SharedArrayBuffer: writer and reader of ring 0, reader of ring 1. */
function pair(ringBytes = RING) {
  const buf = new SharedArrayBuffer(segmentBytesFor(ringBytes));
  return {
    buf,
    w: new RingWriter(buf, ringBytes, 0),
    r: new RingReader(buf, ringBytes, 0),
    other: new RingReader(buf, ringBytes, 1),
  };
}

describe("ring in-process", () => {
  it("wraps around many times with padding, canaries and sequence checks", () => {
    const { buf, w, r, other } = pair();
    const canary = new Uint8Array(buf, HEADER_BYTES + RING, 64).fill(0xa5);
    let sent = 0;
    let got = 0;
    let pads = 0;
    for (let round = 0; round < 2000; round++) {
      const before = r.position;
      for (let k = 0; k < 7; k++) {
        const size = (sent * 37) % 700;
        if (!w.tryWrite(0x80 + (sent % 3), seqFrame(sent, size))) break;
        sent++;
      }
      r.read((type, payload) => {
        assert.equal(type, 0x80 + (got % 3));
        assert.equal(checkSeq(payload, got), undefined);
        assert.equal(payload.byteOffset % 8, 0);
        got++;
      }, 1e9);
      if (r.position - before > 0 && r.position % RING < before % RING) pads++;
    }
    assert.equal(got, sent);
    assert.ok(sent > 5000 && pads > 100, `sent ${sent}, wraps ${pads}`);
    assert.ok(
      canary.every((b) => b === 0xa5),
      "ring 1 canary overwritten",
    );
    assert.equal(new Int32Array(buf)[(1024 + 128) >> 2], 0, "ring 1 control untouched");
    assert.equal(other.position, 0);
    assert.equal(w.position, r.position);
  });

  it("tryWriteWith: payloads written in place, mixed with tryWrite, wrap and sequence intact", () => {
    const { buf, w, r } = pair();
    const canary = new Uint8Array(buf, HEADER_BYTES + RING, 64).fill(0xa5);
    let sent = 0;
    let got = 0;
    let inPlace = 0;
    let fellBack = 0;
    for (let round = 0; round < 3000; round++) {
      for (let k = 0; k < 5; k++) {
        const frame = seqFrame(sent, (sent * 53) % 900);
        const wrote = w.tryWriteWith(0x81, 2048, (dest, offset, limit) => {
          assert.ok(limit % 8 === 0 && limit <= 2048, `limit ${limit}`);
          if (frame.byteLength > limit) return -1;
          dest.set(frame, offset);
          return frame.byteLength;
        });
        if (wrote) inPlace++;
        else if (w.tryWrite(0x81, frame)) fellBack++;
        else break;
        sent++;
      }
      r.read((type, payload) => {
        assert.equal(type, 0x81);
        assert.equal(checkSeq(payload, got), undefined);
        got++;
      }, 1e9);
    }
    assert.equal(got, sent);
    assert.ok(inPlace > 1000 && fellBack > 10, `in place ${inPlace}, fell back ${fellBack}`);
    assert.ok(
      canary.every((b) => b === 0xa5),
      "ring 1 canary overwritten",
    );
  });

  it("tryWriteWith: a fill that gives up publishes nothing; the limit never exceeds free space", () => {
    const { w, r } = pair();
    assert.equal(
      w.tryWriteWith(0x80, 1 << 20, () => -1),
      false,
    );
    assert.equal(w.position, 0);
    assert.equal(
      r.read(() => assert.fail("nothing was published"), 10),
      0,
    );
    while (w.tryWrite(0x80, new Uint8Array(500))) {}
    let seen = -1;
    w.tryWriteWith(0x80, 1 << 20, (_d, _o, limit) => {
      seen = limit;
      return -1;
    });
    assert.ok(seen <= RING - w.position - 16, `limit ${seen} with ${RING - w.position} B free`);
  });

  it("reports full, and frees space as the reader consumes", () => {
    const { w, r } = pair();
    const payload = new Uint8Array(100);
    let n = 0;
    while (w.tryWrite(0x80, payload)) n++;
    assert.equal(n, Math.floor((RING - 8) / 112));
    assert.equal(w.tryWrite(0x80, new Uint8Array(0)), n * 112 + 16 <= RING);
    assert.equal(w.waitForSpace(100), false);
    assert.equal(
      r.read(() => {}, 1),
      1,
    );
    assert.equal(r.takeWaiting(), true, "reader sees the waiting producer");
    assert.equal(r.takeWaiting(), false, "only once");
    assert.equal(w.tryWrite(0x80, payload), false, "needs padding 56 + record 112 + 8 > 160 free");
    assert.equal(
      r.read(() => {}, 1),
      1,
    );
    assert.equal(w.tryWrite(0x80, payload), true);
  });

  it("carries the largest payload and an empty one", () => {
    const { w, r } = pair();
    const big = seqFrame(7, maxPayloadFor(RING));
    for (let i = 0; i < 10; i++) {
      assert.equal(w.tryWrite(0x90, big), true);
      assert.equal(w.tryWrite(0x91, new Uint8Array(0)), true);
      const seen: number[] = [];
      r.read((type, p) => {
        seen.push(type);
        if (type === 0x90) assert.equal(checkSeq(p, 7), undefined);
        else assert.equal(p.byteLength, 0);
      }, 1e9);
      assert.deepEqual(seen, [0x90, 0x91]);
    }
  });

  it("parks: the producer sees the flag once and the consumer re-checks", () => {
    const { w, r } = pair();
    assert.equal(r.park(), true);
    assert.equal(w.tryWrite(0x80, new Uint8Array(8)), true);
    assert.equal(w.takeParked(), true);
    assert.equal(w.takeParked(), false);
    assert.equal(r.park(), false, "data arrived: do not sleep");
  });

  for (const [name, word, type, reason] of [
    ["length past the ring", 0x80000000 | 5000, 0x80, "malformed-frame"],
    ["unknown record type", 0x80000000 | 8, 0x05, "unknown-frame-type"],
    ["uncommitted garbage word", 12, 0x80, "malformed-frame"],
    ["padding that does not end the ring", 0x80000000 | 16, 0x00, "malformed-frame"],
  ] as const) {
    it(`rejects a corrupt record: ${name}`, () => {
      const { buf, w, r } = pair();
      assert.equal(w.tryWrite(0x80, seqFrame(0, 16)), true);
      const at = HEADER_BYTES + 24;
      new Uint8Array(buf)[at + 4] = type;
      Atomics.store(new Int32Array(buf), at >> 2, word | 0);
      const got: number[] = [];
      assert.throws(
        () => r.read((t) => got.push(t), 1e9),
        (e: NearwireError) => e.code === Code.DataLoss && e.reason === reason,
      );
      assert.deepEqual(got, [0x80], "the good record before it was delivered");
      assert.equal(r.position, 24);
    });
  }
});

describe("ring reader against a hostile producer", () => {
  it("rejects a padding record at ring offset 0 (8 bytes that used to loop forever)", () => {
    const { buf, r } = pair();
    new Uint8Array(buf)[HEADER_BYTES + 4] = 0x00;
    Atomics.store(new Int32Array(buf), HEADER_BYTES >> 2, 0x80000000 | (RING - 8) | 0);
    assert.throws(
      () => r.read(() => assert.fail("nothing to deliver"), 1e9),
      (e: NearwireError) => e.code === Code.DataLoss && e.reason === "malformed-frame",
    );
    assert.equal(r.position, 0);
  });

  it("advances at most one ring capacity per read call on a ring tiled with committed records", () => {
    // A producer that ignores the consumer: 8 records of 512 B cover the ring, no empty word.
    const { buf, r } = pair();
    const u8 = new Uint8Array(buf);
    const i32 = new Int32Array(buf);
    for (let at = 0; at < RING; at += 512) {
      u8[HEADER_BYTES + at + 4] = 0x80;
      Atomics.store(i32, (HEADER_BYTES + at) >> 2, 0x80000000 | 504 | 0);
    }
    assert.equal(
      r.read(() => {}, 1e9),
      8,
    );
    assert.equal(r.position, RING, "one lap, not forever");
    assert.equal(
      r.read(() => {}, 1e9),
      8,
    );
    assert.equal(r.position, 2 * RING);
  });
});

describe("segment header", () => {
  it("round-trips and names both values on a mismatch", () => {
    const buf = new SharedArrayBuffer(segmentBytesFor(RING));
    writeHeader(buf, RING, "0123456789abcdef");
    const h = readHeader(buf);
    assert.equal(h.layoutVersion, LAYOUT_VERSION);
    assert.equal(h.ringBytes, RING);
    assert.equal(h.nonce, "0123456789abcdef");
    assert.equal(
      checkHeader(buf, { ringBytes: RING, nonce: h.nonce }).segmentBytes,
      buf.byteLength,
    );
    for (const expected of [
      { ringBytes: RING * 2, nonce: h.nonce },
      { ringBytes: RING, nonce: "0000000000000000" },
    ]) {
      assert.throws(
        () => checkHeader(buf, expected),
        (e: NearwireError) => e.code === Code.FailedPrecondition && e.reason === "layout-mismatch",
      );
    }
    new DataView(buf).setUint32(4, 99, true);
    assert.throws(
      () => checkHeader(buf, { ringBytes: RING, nonce: h.nonce }),
      (e: NearwireError) => e.code === Code.FailedPrecondition && e.reason === "layout-mismatch",
    );
  });
});

describe("fragmented frames (type 0x01 records)", () => {
  it("reassembles fragments and the last piece into one frame of the last piece's type, once", () => {
    const { w, r } = pair();
    r.maxFrameBytes = 10_000;
    const frame = seqFrame(7, 5000);
    const got: [number, Uint8Array][] = [];
    let off = 0;
    while (off < frame.byteLength) {
      const end = Math.min(frame.byteLength, off + 1000);
      assert.ok(w.tryWrite(end === frame.byteLength ? 0x81 : 0x01, frame.subarray(off, end)));
      off = end;
      r.read((type, payload) => got.push([type, payload.slice()]), 1e9);
    }
    assert.equal(got.length, 1);
    assert.equal(got[0]?.[0], 0x81);
    assert.equal(checkSeq(got[0]?.[1] as Uint8Array, 7), undefined);
    assert.ok(w.tryWrite(0x82, seqFrame(8, 10)));
    r.read((type, payload) => got.push([type, payload.slice()]), 1e9);
    assert.equal(got[1]?.[0], 0x82, "an unfragmented frame after it is delivered as is");
  });

  for (const [what, setUp] of [
    [
      "a fragmented frame over the default maxFrameBytes (one record's payload: a peer that did not agree to fragments)",
      (w: RingWriter) =>
        w.tryWrite(0x01, new Uint8Array(2000)) && w.tryWrite(0x80, new Uint8Array(40)),
    ],
    [
      "an empty fragment",
      (w: RingWriter, r: RingReader) => {
        r.maxFrameBytes = 10_000;
        return w.tryWrite(0x01, new Uint8Array(0));
      },
    ],
    [
      "a frame whose pieces add up to more than maxFrameBytes",
      (w: RingWriter, r: RingReader) => {
        r.maxFrameBytes = 2500;
        return w.tryWrite(0x01, new Uint8Array(1500)) && w.tryWrite(0x80, new Uint8Array(1001));
      },
    ],
  ] as const) {
    it(`rejects ${what}: DATA_LOSS malformed-frame, nothing delivered`, () => {
      const { w, r } = pair();
      assert.ok(setUp(w, r));
      assert.throws(
        () => r.read(() => assert.fail("nothing to deliver"), 1e9),
        (e: NearwireError) => e.code === Code.DataLoss && e.reason === "malformed-frame",
      );
    });
  }
});

describe("PROTOCOL.md section 6", () => {
  it("matches the shm-fragment vector: the reader delivers the frame once", () => {
    const doc = readFileSync(new URL("../../../PROTOCOL.md", import.meta.url), "utf8");
    const m =
      /vector: shm-fragment\nframe: type 0x80, payload "hello" \(68 65 6c 6c 6f\)\nrecords: ([0-9a-f ]+)\n/.exec(
        doc,
      );
    assert.ok(m, "vector present");
    const want = (m[1] as string).replace(/ /g, "");
    const buf = new SharedArrayBuffer(segmentBytesFor(RING));
    const w = new RingWriter(buf, RING, 0);
    w.tryWrite(0x01, new TextEncoder().encode("hel"));
    w.tryWrite(0x80, new TextEncoder().encode("lo"));
    assert.equal(Buffer.from(buf, HEADER_BYTES, want.length / 2).toString("hex"), want);
    const r = new RingReader(buf, RING, 0);
    r.maxFrameBytes = 5;
    const got: string[] = [];
    r.read((type, payload) => got.push(`${type}:${Buffer.from(payload).toString()}`), 1e9);
    assert.deepEqual(got, ["128:hello"]);
  });

  it("matches the shm-record vector", () => {
    const doc = readFileSync(new URL("../../../PROTOCOL.md", import.meta.url), "utf8");
    const m =
      /vector: shm-record\nframe: type 0x80, payload "hi" \(68 69\)\nrecord: ([0-9a-f ]+)\n/.exec(
        doc,
      );
    assert.ok(m, "vector present");
    const want = (m[1] as string).replace(/ /g, "");
    const buf = new SharedArrayBuffer(segmentBytesFor(RING));
    new RingWriter(buf, RING, 0).tryWrite(0x80, new Uint8Array([0x68, 0x69]));
    assert.equal(Buffer.from(buf, HEADER_BYTES, want.length / 2).toString("hex"), want);
  });
});

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import {
  checkHeader,
  HEADER_BYTES,
  LAYOUT_VERSION,
  RingWriter,
  readHeader,
} from "../src/subpath-ring.js";
import { attachSegment, createSegment } from "../src/subpath-segment.js";
import { openSegments } from "./support/leak-checks.js";

const RING = 4096;

after(() => assert.deepEqual(openSegments(), { fds: [], maps: [] }));

describe("segment header", () => {
  it("is checked at attach: a wrong layout version names both values", () => {
    const seg = createSegment(RING);
    const h = readHeader(seg.buffer);
    assert.equal(h.layoutVersion, LAYOUT_VERSION);
    new DataView(seg.buffer).setUint32(4, 99, true);
    assert.throws(
      () => attachSegment(process.pid, seg.fd, { ringBytes: RING, nonce: seg.nonce }),
      (e: NearwireError) =>
        e.code === Code.FailedPrecondition &&
        e.reason === "layout-mismatch" &&
        /99/.test(e.message) &&
        /1/.test(e.message),
    );
    new DataView(seg.buffer).setUint32(4, LAYOUT_VERSION, true);
    const ok = attachSegment(process.pid, seg.fd, { ringBytes: RING, nonce: seg.nonce });
    assert.throws(
      () => checkHeader(ok.buffer, { ringBytes: RING * 2, nonce: seg.nonce }),
      (e: NearwireError) => e.reason === "layout-mismatch",
    );
    assert.throws(
      () => attachSegment(process.pid, seg.fd, { ringBytes: RING, nonce: "0000000000000000" }),
      (e: NearwireError) => e.reason === "layout-mismatch",
    );
    ok.release();
    seg.release();
  });

  it("rejects bad ring sizes and a gone segment", () => {
    for (const bad of [0, 1000, 4097, 2 ** 31]) {
      assert.throws(
        () => createSegment(bad),
        (e: NearwireError) => e.code === Code.InvalidArgument,
      );
    }
    assert.throws(
      () => attachSegment(process.pid, 987654, { ringBytes: RING, nonce: "0000000000000000" }),
      (e: NearwireError) => e.code === Code.Unavailable,
    );
  });

  it("maps errors of an unwritable or missing segment directory", () => {
    assert.throws(
      () => createSegment(RING, "/sys"),
      (e: NearwireError) => e.code === Code.PermissionDenied,
    );
    assert.throws(
      () => createSegment(RING, "/nonexistent-dir"),
      (e: NearwireError) => e.code === Code.FailedPrecondition,
    );
  });

  it("unmaps on release: views become empty, release is idempotent", () => {
    const seg = createSegment(RING);
    const view = new Uint8Array(seg.buffer);
    assert.equal(view.length, HEADER_BYTES + 2 * RING);
    seg.release();
    seg.release();
    assert.equal(view.length, 0);
  });
});

describe("PROTOCOL.md section 6", () => {
  it("matches the shm-record vector in a mapped segment", () => {
    const doc = readFileSync(new URL("../../../PROTOCOL.md", import.meta.url), "utf8");
    const m =
      /vector: shm-record\nframe: type 0x80, payload "hi" \(68 69\)\nrecord: ([0-9a-f ]+)\n/.exec(
        doc,
      );
    assert.ok(m, "vector present");
    const want = (m[1] as string).replace(/ /g, "");
    const seg = createSegment(RING);
    new RingWriter(seg.buffer, RING, 0).tryWrite(0x80, new Uint8Array([0x68, 0x69]));
    assert.equal(Buffer.from(seg.buffer, HEADER_BYTES, want.length / 2).toString("hex"), want);
    seg.release();
  });
});

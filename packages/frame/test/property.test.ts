import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { encodeFrame, FrameDecoder } from "../src/index.js";

const SEED = 4242;

describe("property: any frame sequence cut anywhere decodes to itself", () => {
  it("random frames, random cut points (seeded)", () => {
    const frameArb = fc.record({
      type: fc.integer({ min: 0, max: 255 }),
      payload: fc.oneof(
        { weight: 4, arbitrary: fc.uint8Array({ maxLength: 40 }) },
        { weight: 1, arbitrary: fc.uint8Array({ minLength: 100, maxLength: 3000 }) },
      ),
    });
    fc.assert(
      fc.property(
        fc.array(frameArb, { maxLength: 20 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (frames, cutSeeds) => {
          const stream = Buffer.concat(frames.map((f) => encodeFrame(f.type, f.payload)));
          const cuts = [
            ...new Set(cutSeeds.map((c) => (stream.length === 0 ? 0 : c % (stream.length + 1)))),
          ].sort((a, b) => a - b);
          const got: { type: number; payload: Uint8Array }[] = [];
          const decoder = new FrameDecoder({
            maxPayloadBytes: 4096,
            onFrame: (type, payload) => got.push({ type, payload: new Uint8Array(payload) }),
          });
          let prev = 0;
          for (const cut of [...cuts, stream.length]) {
            decoder.push(new Uint8Array(stream.subarray(prev, cut)));
            prev = cut;
          }
          assert.deepEqual(
            got,
            frames.map((f) => ({ type: f.type, payload: new Uint8Array(f.payload) })),
          );
          assert.equal(decoder.bufferedBytes, 0);
        },
      ),
      { seed: SEED, numRuns: 400 },
    );
  });
});

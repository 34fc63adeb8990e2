import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { chunkWriter } from "../src/server/chunk-writer.js";
import type { PartialUpload } from "../src/server/partial-upload.js";

/** A PartialUpload whose writeMany records its batches and waits for `release()`. */
function fakePartial(fail?: Error) {
  const batches: number[][] = [];
  let release!: () => void;
  let gate = new Promise<void>((r) => {
    release = r;
  });
  const partial = {
    async writeMany(chunks: readonly Uint8Array[]) {
      batches.push(chunks.map((c) => c[0] as number));
      await gate;
      gate = new Promise<void>((r) => {
        release = r;
      });
      if (fail !== undefined) throw fail;
    },
  } as unknown as PartialUpload;
  return { partial, batches, release: () => release() };
}

const chunk = (tag: number) => new Uint8Array([tag, 0, 0, 0]);

describe("chunk writer", () => {
  it("writes chunks that arrive during a write together, in order", async () => {
    const f = fakePartial();
    const w = chunkWriter(f.partial);
    w.enqueue(chunk(1));
    w.enqueue(chunk(2));
    w.enqueue(chunk(3));
    assert.equal(w.queuedBytes, 8);
    const drained = w.drain();
    f.release();
    await new Promise((r) => setImmediate(r));
    f.release();
    await drained;
    assert.deepEqual(f.batches, [[1], [2, 3]]);
    assert.equal(w.queuedBytes, 0);
  });

  it("the first write error is thrown by drain and throwIfFailed; nothing more is written", async () => {
    const f = fakePartial(new NearwireError(Code.ResourceExhausted, "disk full"));
    const w = chunkWriter(f.partial);
    w.enqueue(chunk(1));
    w.enqueue(chunk(2));
    f.release();
    await assert.rejects(w.drain(), (err: NearwireError) => err.code === Code.ResourceExhausted);
    assert.throws(
      () => w.throwIfFailed(),
      (err: NearwireError) => err.code === Code.ResourceExhausted,
    );
    w.enqueue(chunk(3));
    await assert.rejects(w.drain());
    assert.deepEqual(f.batches, [[1]]);
  });
});

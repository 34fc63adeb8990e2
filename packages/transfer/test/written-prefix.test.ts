import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { WrittenPrefix } from "../src/server/written-prefix.js";

describe("written prefix", () => {
  it("writes go one after another from where the file was written to", () => {
    const p = new WrittenPrefix(1000);
    const a = p.begin(10);
    const b = p.begin(20);
    assert.equal(a.at, 1000);
    assert.equal(b.at, 1010);
    assert.equal(p.begin(5).at, 1030);
  });

  it("a write that ends before one begun earlier moves the prefix only once that one ended", () => {
    const p = new WrittenPrefix(0);
    const a = p.begin(100);
    const b = p.begin(200);
    const c = p.begin(300);
    assert.equal(b.ended(), 0, "b ended, a still in flight: nothing is written for sure");
    assert.equal(a.ended(), 300, "a ended: a and b");
    assert.equal(c.ended(), 300, "c ended: c");
  });

  it("a write that never ends (it failed) holds the prefix before it", () => {
    const p = new WrittenPrefix(0);
    p.begin(100); // failed: its ended() is never called
    const b = p.begin(100);
    assert.equal(b.ended(), 0);
    const c = p.begin(100);
    assert.equal(c.ended(), 0);
  });
});

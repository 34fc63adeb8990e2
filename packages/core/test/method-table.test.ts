import assert from "node:assert/strict";
import { test } from "node:test";
import { messageType } from "../src/codec.js";
import { jsonCodec } from "../src/json-codec.js";
import { bindHandlers } from "../src/rpc/bound-method.js";
import { MethodTable } from "../src/rpc/method-table.js";
import { defineService, unary } from "../src/service.js";

const M = messageType<unknown>("t.M");
// Two paths of the same length that differ in their last byte, and one that is a prefix.
const Svc = defineService("t.Svc", {
  callA: unary(M, M),
  callB: unary(M, M),
  call: unary(M, M),
});

const utf8 = new TextEncoder();
/** `path` inside a larger frame, at offset 3, as a REQUEST holds it. */
function inFrame(path: string): [Uint8Array, number, number] {
  const bytes = utf8.encode(path);
  const frame = new Uint8Array(bytes.byteLength + 8).fill(0x2f);
  frame.set(bytes, 3);
  return [frame, 3, bytes.byteLength];
}

test("lookup finds each method by its path bytes, whichever was found before, and nothing else", () => {
  const table = new MethodTable();
  for (const m of bindHandlers(Svc, { callA() {}, callB() {}, call() {} }, jsonCodec)) {
    table.add(m);
  }
  assert.equal(table.size, 3);
  // Alternate, so that each lookup follows a hit on another method (the last-hit check).
  const order = ["callA", "callB", "callB", "call", "callA", "call", "callB"];
  for (const name of order) {
    const found = table.lookup(...inFrame(`/t.Svc/${name}`));
    assert.equal(found?.bound.name, name);
  }
  // After a hit: an unknown path of the same length, a longer one and a shorter one miss.
  assert.equal(table.lookup(...inFrame("/t.Svc/callA"))?.bound.name, "callA");
  assert.equal(table.lookup(...inFrame("/t.Svc/callC")), undefined);
  assert.equal(table.lookup(...inFrame("/t.Svc/callAB")), undefined);
  assert.equal(table.lookup(...inFrame("/t.Svc/cal")), undefined);
  assert.equal(table.lookup(...inFrame("/t.Svc/callA"))?.bound.name, "callA");
});

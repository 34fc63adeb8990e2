import assert from "node:assert/strict";
import { test } from "node:test";
import { messageType } from "../src/codec.js";
import { jsonCodec } from "../src/json-codec.js";
import { MethodTable } from "../src/rpc/method-table.js";
import { bindHandlers } from "../src/rpc/served-method.js";
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
  for (const m of bindHandlers(Svc, { callA() {}, callB() {}, call() {} }, { codec: jsonCodec })) {
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

test("a path differing from a served one in any single byte, word or tail, is not found", () => {
  // Lengths 12–15: whole words only, and 1–3 tail bytes compared one by one.
  const names = ["abcde", "abcdef", "abcdefg", "abcdefgh"];
  const svc = defineService(
    "t.W",
    Object.fromEntries(names.map((n) => [n, unary(M, M)])) as Record<
      string,
      ReturnType<typeof unary>
    >,
  );
  const table = new MethodTable();
  const impl = Object.fromEntries(names.map((n) => [n, () => undefined]));
  for (const m of bindHandlers(svc, impl, { codec: jsonCodec })) table.add(m);
  for (const name of names) {
    const [frame, at, len] = inFrame(`/t.W/${name}`);
    assert.equal(table.lookup(frame, at, len)?.bound.name, name);
    for (let i = 0; i < len; i++) {
      const changed = frame.slice();
      changed[at + i] = (changed[at + i] as number) ^ 0x01;
      assert.equal(table.lookup(changed, at, len), undefined, `${name}: byte ${i} changed`);
      // The unchanged path is still found after the miss (and the miss did not replace it).
      assert.equal(table.lookup(frame, at, len)?.bound.name, name);
    }
  }
});

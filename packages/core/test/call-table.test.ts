import assert from "node:assert/strict";
import { test } from "node:test";
import { CallTable } from "../src/rpc/call-table.js";

class Call {
  constructor(readonly id: number) {}
}

test("call table: sequential ids live in slots, colliding ids overflow, both found and removed", () => {
  const table = new CallTable<Call>();
  const long = new Call(5); // a long-lived call holds slot 5
  table.add(long);
  const calls = Array.from({ length: 600 }, (_, i) => new Call(6 + i)); // wraps past 256 slots twice
  for (const c of calls) table.add(c);
  assert.equal(table.size, 601);
  for (const c of calls) assert.equal(table.get(c.id), c);
  assert.equal(table.get(5), long);
  assert.equal(table.get(5 + 256), calls[255]); // same slot as `long`, kept in the overflow map
  assert.equal(table.get(10_000), undefined);
  assert.equal(table.has(0), false);
  // Removing an object that only shares an id's slot removes nothing.
  assert.equal(table.remove(new Call(5)), false);
  assert.equal(table.size, 601);
  for (const c of calls) assert.equal(table.remove(c), true);
  assert.equal(table.remove(calls[0] as Call), false);
  assert.equal(table.size, 1);
  assert.deepEqual(table.snapshot(), [long]);
  assert.equal(table.holds(long), true);
  table.clear();
  assert.equal(table.size, 0);
  assert.equal(table.get(5), undefined);
  assert.deepEqual(table.snapshot(), []);
});

test("call table: ids at the top of the u32 range and ids that differ only in high bits", () => {
  const table = new CallTable<Call>();
  const a = new Call(0xffffffff);
  const b = new Call(0xffffffff - 256 * 1000); // same low bits
  table.add(a);
  table.add(b);
  assert.equal(table.get(0xffffffff), a);
  assert.equal(table.get(b.id), b);
  assert.equal(table.remove(a), true);
  assert.equal(table.get(0xffffffff), undefined);
  assert.equal(table.get(b.id), b);
});

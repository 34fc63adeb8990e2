import assert from "node:assert/strict";
import { it } from "node:test";
import { startHeapAccounting } from "../src/measure/heap-per-call.js";

it("counts heap allocations collected during the window, and not much else", () => {
  const idle = startHeapAccounting();
  const idleBytes = idle.stop();
  const heap = startHeapAccounting();
  let keep: number[][] = [];
  // 20,000 arrays of 1,000 doubles: at least 8,000 bytes each, 160 MB in all, so many scavenges.
  for (let i = 0; i < 20_000; i++) {
    keep.push(new Array<number>(1000).fill(i + 0.5));
    if (keep.length > 10) keep = [];
  }
  const bytes = heap.stop();
  assert.ok(bytes >= 160e6, `${bytes} B counted`);
  assert.ok(bytes < 400e6, `${bytes} B counted`);
  assert.ok(idleBytes < 1e6, `${idleBytes} B while idle`);
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { creditWindowCheck } from "@nearwire/conformance";
import { leakCheckedTempDir } from "./support/leak-checks.js";

// PROTOCOL.md §5.4, §6.1: a receiver's own byte window, announced in the handshake
// (`creditWindowBytes` beside `features`), holds a stream of 64 KiB messages to that window
// whichever side receives, the sender in another process; without it a stream holds 32 of them
// (2 MiB). Every message arrives intact once the receiver reads on.
const tmp = leakCheckedTempDir("nw-shm-window-");
const factoryModule = new URL("./fixtures/shm-factory.js", import.meta.url).href;
const KiB = 1024;

describe("a receiver's byte window over shm-ring", () => {
  for (const receiver of ["client", "server"] as const) {
    it(`${receiver} receives: 256 KiB holds 4 messages of 64 KiB, no window 32`, async (t) => {
      const check = (creditWindowBytes?: number) =>
        creditWindowCheck({
          factoryModule,
          address: tmp.sock(`w-${receiver}-${creditWindowBytes ?? "none"}`),
          receiver,
          ...(creditWindowBytes === undefined ? {} : { creditWindowBytes }),
        });
      const held = await check(256 * KiB);
      const plain = await check();
      t.diagnostic(`${held} messages held with the window, ${plain} without`);
      assert.ok(held >= 4 && held <= 6, `window: ${held} messages held`);
      assert.ok(plain >= 32 && plain <= 40, `no window: ${plain} messages held`);
    });
  }
});

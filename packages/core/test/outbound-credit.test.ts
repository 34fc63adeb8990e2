import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code } from "../src/code.js";
import { SEND_WINDOW_BYTES } from "../src/frame-type.js";
import { NearwireError } from "../src/nearwire-error.js";
import { INITIAL_CREDIT } from "../src/rpc/envelope.js";
import { OutboundCredit } from "../src/rpc/outbound-credit.js";

const MiB = 1024 * 1024;

/** Takes credit and sends `bytes` until a take has to wait; returns how many went out. */
function sendUntilBlocked(credit: OutboundCredit, bytes: number, max = 1000): number {
  for (let n = 0; n < max; n++) {
    if (credit.take() !== undefined) return n;
    credit.sent(bytes);
  }
  return max;
}

describe("OutboundCredit (send side, PROTOCOL.md §5.4)", () => {
  it("without a byte window: the 32 messages of the initial credit, whatever their size", () => {
    assert.equal(sendUntilBlocked(new OutboundCredit(), MiB), INITIAL_CREDIT);
  });

  it("with the byte window: 1 MiB messages stop at 2 MiB unacknowledged, each grant lets one more go", async () => {
    assert.equal(SEND_WINDOW_BYTES, 2 * MiB);
    const credit = new OutboundCredit(SEND_WINDOW_BYTES);
    assert.equal(sendUntilBlocked(credit, MiB), 2);
    // The third take waits; a grant of 1 acknowledges the oldest message: 1 MiB unacknowledged.
    const wait = credit.take() as Promise<void>;
    let woke = false;
    void wait.then(() => {
      woke = true;
    });
    await Promise.resolve();
    assert.equal(woke, false);
    credit.grant(1);
    await wait;
    assert.equal(woke, true);
    credit.sent(MiB);
    assert.equal(credit.take() instanceof Promise, true, "2 MiB unacknowledged again");
  });

  it("64 KiB messages are held by their 32 credits first (32 × 64 KiB = the window)", () => {
    assert.equal(
      sendUntilBlocked(new OutboundCredit(SEND_WINDOW_BYTES), 64 * 1024),
      INITIAL_CREDIT,
    );
  });

  it("credit beyond the messages sent (a grown window) acknowledges the next ones", () => {
    const credit = new OutboundCredit(SEND_WINDOW_BYTES);
    credit.grant(4);
    // Four messages are acknowledged ahead: 4 + 2 of 1 MiB go before the window is full.
    assert.equal(sendUntilBlocked(credit, MiB), 6);
  });

  it("a failed call rejects a waiting take and every later one", async () => {
    const credit = new OutboundCredit(SEND_WINDOW_BYTES);
    sendUntilBlocked(credit, MiB);
    const wait = credit.take() as Promise<void>;
    credit.fail(new NearwireError(Code.Canceled, "gone"));
    await assert.rejects(wait, (e: NearwireError) => e.code === Code.Canceled);
    await assert.rejects(
      credit.take() as Promise<void>,
      (e: NearwireError) => e.code === Code.Canceled,
    );
  });
});

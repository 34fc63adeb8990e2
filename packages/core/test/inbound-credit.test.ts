import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  announcedCreditWindow,
  CREDIT_GRANT_BYTES,
  creditWindowBytes,
  FEATURE_CREDIT_BYTES,
  FEATURE_CREDIT_WINDOW,
} from "../src/frame-type.js";
import { INITIAL_CREDIT } from "../src/rpc/envelope.js";
import {
  GRANT_PARTS,
  InboundCredit,
  MAX_RING_WINDOW_MESSAGES,
  MAX_WINDOW_MESSAGES,
  WINDOW_BYTES,
  windowLimits,
} from "../src/rpc/inbound-credit.js";

/** Receives and consumes `n` messages of `bytes` each, in lockstep; returns the grants sent. */
function flow(credit: InboundCredit, n: number, bytes: number): number[] {
  const grants: number[] = [];
  for (let i = 0; i < n; i++) {
    assert.ok(credit.onReceived(bytes));
    const g = credit.onConsumed();
    if (g > 0) grants.push(g);
  }
  return grants;
}

describe("InboundCredit (receive window, PROTOCOL.md §5.4)", () => {
  it("small messages: the window grows to the cap by granting more than was consumed", () => {
    const credit = new InboundCredit();
    const grants = flow(credit, 20_000, 64);
    assert.equal(MAX_WINDOW_MESSAGES, 4096);
    assert.equal(GRANT_PARTS, 2);
    assert.equal(grants[0], 16 + (MAX_WINDOW_MESSAGES - INITIAL_CREDIT), "first grant widens");
    assert.ok(grants.length >= 8, `${grants.length} grants`);
    assert.ok(
      grants.slice(1).every((g) => g === MAX_WINDOW_MESSAGES / 2),
      `${grants}`,
    );
  });

  it("1 KiB messages: the window stops at 1 MiB of messages (1,024)", () => {
    const grants = flow(new InboundCredit(), 20_000, 1024);
    assert.equal(grants[0], 16 + (1024 - INITIAL_CREDIT));
    assert.ok(
      grants.slice(1).every((g) => g === 512),
      `${grants}`,
    );
  });

  it("64 KiB messages: the window stays at the protocol's 32, credit every 16", () => {
    const grants = flow(new InboundCredit(), 200, 64 * 1024);
    assert.equal(grants.length, 12);
    assert.ok(
      grants.every((g) => g === 16),
      `${grants}`,
    );
  });

  it("1 MiB messages: credit goes back message by message (CREDIT_GRANT_BYTES), not per 16", () => {
    assert.equal(CREDIT_GRANT_BYTES, 1024 * 1024);
    const grants = flow(new InboundCredit(), 40, 1024 * 1024);
    assert.deepEqual(grants, new Array(40).fill(1));
  });

  it("by the consumed messages' own sizes: many small ones then a large one get credit at once", () => {
    // The window grew for small messages (half of it is hundreds); a 2 MiB message that follows
    // must still get its credit once consumed, or a sender held to 2 MiB unacknowledged waits
    // forever.
    const credit = new InboundCredit();
    flow(credit, 5000, 64);
    assert.ok(credit.onReceived(2 * 1024 * 1024));
    assert.ok(credit.onConsumed() > 0);
  });

  it("a peer more than 32 past its credit is refused; within the slack it is not", () => {
    const credit = new InboundCredit();
    for (let i = 0; i < INITIAL_CREDIT * 2; i++) assert.ok(credit.onReceived(64), `message ${i}`);
    assert.equal(credit.onReceived(64), false);
  });
});

describe("window limits by the channel's inbound capacity", () => {
  it("unknown capacity (a socket): the default 1 MiB and 4,096 messages", () => {
    assert.deepEqual(windowLimits(undefined), {
      bytes: WINDOW_BYTES,
      messages: MAX_WINDOW_MESSAGES,
      grantBytes: CREDIT_GRANT_BYTES,
    });
    assert.deepEqual(windowLimits(0), windowLimits(undefined));
  });

  it("a 4 MiB ring: 64-byte messages get 16,384 (first grant widens, then half the window each)", () => {
    const limits = windowLimits(4 * 1024 * 1024);
    assert.deepEqual(limits, {
      bytes: WINDOW_BYTES,
      messages: MAX_RING_WINDOW_MESSAGES,
      grantBytes: CREDIT_GRANT_BYTES,
    });
    const grants = flow(new InboundCredit(limits), 40_000, 64);
    assert.equal(grants[0], 16 + (16384 - INITIAL_CREDIT));
    assert.ok(
      grants.slice(1).every((g) => g === 8192),
      `${grants}`,
    );
  });

  it("a 64 KiB ring: the window is half the ring of messages (512 of 64 bytes)", () => {
    const grants = flow(new InboundCredit(windowLimits(64 * 1024)), 5_000, 64);
    assert.equal(grants[0], 16 + (512 - INITIAL_CREDIT));
    assert.ok(
      grants.slice(1).every((g) => g === 256),
      `${grants}`,
    );
  });
});

describe("an announced byte window (CREDIT_WINDOW, PROTOCOL.md §5.4)", () => {
  const KiB = 1024;

  it("an announced W reads as W clamped to 64 KiB … 2 MiB", () => {
    assert.equal(creditWindowBytes(0), 64 * KiB);
    assert.equal(creditWindowBytes(1), 64 * KiB);
    assert.equal(creditWindowBytes(300_000), 300_000);
    assert.equal(creditWindowBytes(2 * 1024 * KiB + 1), 2 * 1024 * KiB);
    assert.equal(creditWindowBytes(0xffff_ffff), 2 * 1024 * KiB);
    // A preface announces one only with both bits and the value beside them.
    const both = FEATURE_CREDIT_BYTES | FEATURE_CREDIT_WINDOW;
    assert.equal(announcedCreditWindow(both, 300_000), 300_000);
    assert.equal(announcedCreditWindow(both, 1), 64 * KiB);
    assert.equal(announcedCreditWindow(both, undefined), undefined);
    assert.equal(announcedCreditWindow(FEATURE_CREDIT_WINDOW, 300_000), undefined);
    assert.equal(announcedCreditWindow(FEATURE_CREDIT_BYTES, 300_000), undefined);
    assert.equal(announcedCreditWindow(undefined, 300_000), undefined);
  });

  it("512 KiB: 64 KiB messages get credit every 4 (256 KiB), not every 16", () => {
    const limits = windowLimits(undefined, 512 * KiB);
    assert.deepEqual(limits, {
      bytes: 512 * KiB,
      messages: MAX_WINDOW_MESSAGES,
      grantBytes: 256 * KiB,
    });
    const grants = flow(new InboundCredit(limits), 200, 64 * KiB);
    assert.deepEqual(grants, new Array(50).fill(4));
  });

  it("512 KiB: messages of half the window or more get credit one by one", () => {
    const grants = flow(new InboundCredit(windowLimits(undefined, 512 * KiB)), 10, 256 * KiB);
    assert.deepEqual(grants, new Array(10).fill(1));
  });

  it("small messages: the message window is at most the byte window's worth (2,048 of 64 B in 128 KiB)", () => {
    const grants = flow(new InboundCredit(windowLimits(undefined, 512 * KiB)), 40_000, 64);
    // 4,096 at most over a socket (512 KiB ÷ 64 B = 8,192 is past it): grants by the byte rule
    // (256 KiB = 4,096 messages) or half the window (2,048), whichever first.
    assert.equal(grants[0], 16 + (MAX_WINDOW_MESSAGES - INITIAL_CREDIT));
    assert.ok(
      grants.slice(1).every((g) => g === MAX_WINDOW_MESSAGES / 2),
      `${grants}`,
    );
    // 128 KiB: 2,048 messages of 64 B, granted 1,024 at a time.
    const small = flow(new InboundCredit(windowLimits(undefined, 128 * KiB)), 40_000, 64);
    assert.equal(small[0], 16 + (2048 - INITIAL_CREDIT));
    assert.ok(
      small.slice(1).every((g) => g === 1024),
      `${small}`,
    );
  });

  it("over a ring: the smaller of half the ring and the window", () => {
    assert.deepEqual(windowLimits(4 * 1024 * KiB, 256 * KiB), {
      bytes: 256 * KiB,
      messages: MAX_RING_WINDOW_MESSAGES,
      grantBytes: 128 * KiB,
    });
  });
});

/**
 * `channelSuite()`: the one test suite every {@link Channel} implementation runs (uds, shm-ring,
 * worker, core's memory channel), abstract-level style: a factory makes a fresh connected pair
 * per test, `supports` flags switch the tests a channel cannot pass off (shown as skipped with
 * the flag's name). Both ends live in the test process; the transports' own tests cover what
 * needs a second process (a peer killed by a signal, a hostile peer).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Channel, Code, codeName, NearwireError } from "@nearwire/core";
import { readSeq, seqFrame } from "./seq-frames.js";
import { assertNearwireError, hangGuard, sleep, waitFor } from "./wait.js";

/** What a channel implementation can do; a false flag switches the tests that need it off. */
export interface ChannelSupports {
  /** `close(error)` reaches the peer, whose channel then ends with that code (GOAWAY). */
  closeReason: boolean;
  /** The pair offers `crash()`: the remote end goes away as a killed process's would. */
  peerCrash: boolean;
  /** The channel implements the optional zero-copy `sendWith` (and `backpressured`). */
  sendWith: boolean;
}

/** A connected pair made by the suite's factory: `local` and `remote` are the two ends. */
export interface ChannelPair {
  /** The end the suite mostly drives. */
  local: Channel;
  /** The other end. */
  remote: Channel;
  /** With `supports.peerCrash`: ends `remote` with no goodbye, as a process death would. */
  crash?(): void | Promise<void>;
  /** Releases what the factory made besides the channels (a listener, a socket file). */
  dispose?(): Promise<void>;
}

/** Options of {@link channelSuite}. */
export interface ChannelSuiteOptions {
  /** Shown as the top-level test group: `uds (path)`. */
  name: string;
  /** Makes a fresh connected pair; called once per test. */
  factory: () => Promise<ChannelPair>;
  /** What the implementation supports. */
  supports: ChannelSupports;
  /** Sequence frames each way in the ordering test. Default 100,000. */
  frames?: number;
  /**
   * Makes a fresh pair whose connecting end (`remote`) and accepting end (`local`) were set up
   * with these `batches` options. When given, the suite checks the BATCH negotiation (PROTOCOL.md
   * §4.1, §6.1): each end takes BATCH frames only if it announced them, and sends them only if
   * the other end did too. Absent: those tests are shown as skipped.
   */
  batchesFactory?: (batches: { connector: boolean; listener: boolean }) => Promise<ChannelPair>;
}

/** Application frame types the suite sends (0x80–0xFF are free for channel-layer users). */
const SEQ = 0x80;
const MARK = 0x81;
/** Hang guard of one test, ms. */
const TEST_TIMEOUT_MS = 60_000;
/** Frame types `send` must refuse with INVALID_ARGUMENT `unknown-frame-type`. */
const BAD_TYPES = [0x00, 0x01, 0x0f, 0x100, -1, 1.5, Number.NaN];

/** Frames received by one end (payloads copied: a ring's views are transient), and its close. */
class Recorder {
  readonly frames: { type: number; payload: Uint8Array }[] = [];
  closeCount = 0;
  closeError: NearwireError | undefined;
  private readonly closedPromise: Promise<NearwireError | undefined>;
  onFrame: (type: number, payload: Uint8Array) => void = (type, payload) => {
    this.frames.push({ type, payload: payload.slice() });
  };

  constructor(channel: Channel) {
    let resolve!: (e: NearwireError | undefined) => void;
    this.closedPromise = new Promise((r) => {
      resolve = r;
    });
    channel.start({
      onFrame: (type, payload) => this.onFrame(type, payload),
      onClose: (error) => {
        this.closeCount++;
        this.closeError = error;
        resolve(error);
      },
    });
  }

  /** The close error (undefined for a clean close); hang guard `ms`. */
  closed(ms = 10_000): Promise<NearwireError | undefined> {
    return hangGuard(this.closedPromise, ms, "onClose");
  }

  /** Waits until `n` frames arrived. */
  async count(n: number, ms = 20_000): Promise<void> {
    await waitFor(
      `${n} frames (have ${this.frames.length})`,
      () => (this.frames.length >= n ? true : undefined),
      { timeoutMs: ms, intervalMs: 5 },
    );
  }
}

/** Sends `count` sequence frames of `size` B, awaiting `drained()` whenever send says so. */
async function sendSequence(ch: Channel, count: number, size: number, first = 0): Promise<number> {
  let pushedBack = 0;
  const payload = new Uint8Array(size);
  const view = new DataView(payload.buffer);
  for (let i = first; i < first + count; i++) {
    view.setUint32(0, i, true);
    if (!ch.send(SEQ, payload)) {
      pushedBack++;
      await ch.drained();
    }
  }
  return pushedBack;
}

/** Counts sequence frames on `rec`, noting the first out-of-order one. */
function checkOrder(rec: Recorder): { next: () => number; gap: () => string | undefined } {
  let expected = 0;
  let gap: string | undefined;
  rec.onFrame = (type, payload) => {
    if (type !== SEQ) {
      rec.frames.push({ type, payload: payload.slice() });
      return;
    }
    const seq = readSeq(payload);
    if (seq !== expected && gap === undefined) gap = `frame ${seq} where ${expected} was due`;
    expected++;
  };
  return { next: () => expected, gap: () => gap };
}

/** Calls `fn` and returns what it threw (fails when it returns). */
function thrown(fn: () => unknown, what: string): NearwireError {
  try {
    fn();
  } catch (err) {
    assertNearwireError(err, what);
    return err;
  }
  assert.fail(`${what}: did not throw`);
}

function assertError(
  err: NearwireError | undefined,
  code: Code,
  reason: string | undefined,
  what: string,
): void {
  assertNearwireError(err, what);
  assert.equal(codeName(err.code), codeName(code), `${what}: ${err.message}`);
  if (reason !== undefined) assert.equal(err.reason, reason, `${what}: reason`);
}

/** Runs `fn` on a fresh pair from `make`, then closes both ends and disposes of the pair. */
async function withPair(
  make: () => Promise<ChannelPair>,
  fn: (pair: ChannelPair) => Promise<void>,
): Promise<void> {
  const pair = await make();
  try {
    await fn(pair);
  } finally {
    await Promise.allSettled([pair.local.close(), pair.remote.close()]);
    await pair.dispose?.();
  }
}

/**
 * Registers the channel suite for one Channel implementation with `node:test`; call it at the
 * top level of a test file. Each test gets a fresh pair from `factory` and closes both ends.
 *
 * ```ts
 * import { memoryChannelPair } from "@nearwire/core/transport-kit";
 *
 * channelSuite({
 *   name: "memory",
 *   factory: async () => {
 *     const limits = { maxPayloadBytes: 1 << 20, highWaterMarkBytes: 1 << 20 };
 *     const [local, remote] = memoryChannelPair(limits);
 *     return { local, remote };
 *   },
 *   supports: { closeReason: true, peerCrash: false, sendWith: true },
 * });
 * ```
 */
export function channelSuite(options: ChannelSuiteOptions): void {
  const frames = options.frames ?? 100_000;
  const { supports } = options;

  function test(
    name: string,
    fn: (pair: ChannelPair) => Promise<void>,
    requires: (keyof ChannelSupports)[] = [],
  ): void {
    const missing = requires.filter((f) => !supports[f]);
    const skip = missing.length > 0 ? `channel does not support ${missing.join(", ")}` : false;
    it(name, { timeout: TEST_TIMEOUT_MS, skip }, () => withPair(options.factory, fn));
  }

  describe(`channel suite: ${options.name}`, () => {
    const { batchesFactory } = options;
    for (const [connector, listener] of [
      [true, true],
      [true, false],
      [false, true],
      [false, false],
    ] as const) {
      it(
        `BATCH negotiation: connector batches ${connector}, listener batches ${listener}`,
        {
          timeout: TEST_TIMEOUT_MS,
          skip: batchesFactory === undefined ? "no batchesFactory" : false,
        },
        () =>
          withPair(
            () => (batchesFactory as NonNullable<typeof batchesFactory>)({ connector, listener }),
            async ({ local, remote }) => {
              assert.equal(remote.acceptsBatches, connector, "connector takes");
              assert.equal(remote.peerAcceptsBatches, connector && listener, "connector sends");
              assert.equal(local.peerAcceptsBatches, connector, "listener sends");
              assert.equal(local.acceptsBatches, connector && listener, "listener takes");
              // Credit by bytes (PROTOCOL.md §5.4) comes with the features field: the connector
              // sends it with BATCH, and the listener answers it whatever its own BATCH.
              assert.equal(
                local.peerCreditsBytes === true,
                connector,
                "listener may wait on bytes",
              );
              assert.equal(
                remote.peerCreditsBytes === true,
                connector,
                "connector may wait on bytes",
              );
            },
          ),
      );
    }

    test("a new pair is open and describes itself", async ({ local, remote }) => {
      for (const ch of [local, remote]) {
        assert.equal(ch.closed, false);
        assert.ok(Number.isInteger(ch.maxPayloadBytes) && ch.maxPayloadBytes >= 1024);
        assert.equal(typeof ch.transientPayloads, "boolean");
        assert.ok(typeof ch.peer === "string" && ch.peer.length > 0, "peer names the other end");
        assert.equal(typeof ch.sendWith === "function", supports.sendWith, "supports.sendWith");
      }
    });

    test(`${frames} sequence frames each way arrive in order, none lost`, async ({
      local,
      remote,
    }) => {
      const atLocal = new Recorder(local);
      const atRemote = new Recorder(remote);
      const l = checkOrder(atLocal);
      const r = checkOrder(atRemote);
      await Promise.all([sendSequence(local, frames, 64), sendSequence(remote, frames, 48)]);
      await waitFor(
        "every frame",
        () => {
          // A gap fails at once rather than when the wait runs out.
          assert.equal(l.gap() ?? r.gap(), undefined);
          return l.next() >= frames && r.next() >= frames ? true : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 5 },
      );
      assert.equal(l.gap(), undefined);
      assert.equal(r.gap(), undefined);
      assert.equal(l.next(), frames);
      assert.equal(r.next(), frames);
    });

    test("frames sent before start() are delivered after it, in order", async ({
      local,
      remote,
    }) => {
      const atRemote = new Recorder(remote);
      for (let i = 0; i < 100; i++) remote.send(SEQ, seqFrame(i, 16));
      await sleep(20);
      const atLocal = new Recorder(local);
      await atLocal.count(100);
      assert.deepEqual(
        atLocal.frames.map((f) => readSeq(f.payload)),
        Array.from({ length: 100 }, (_, i) => i),
      );
      assert.equal(atRemote.frames.length, 0);
      const again = thrown(() => local.start({ onFrame() {}, onClose() {} }), "second start");
      assertError(again, Code.FailedPrecondition, undefined, "second start()");
    });

    test("a payload of maxPayloadBytes arrives intact; one byte more is RESOURCE_EXHAUSTED frame-too-large", async ({
      local,
      remote,
    }) => {
      const atRemote = new Recorder(remote);
      new Recorder(local);
      const max = Math.min(local.maxPayloadBytes, remote.maxPayloadBytes);
      assert.equal(local.maxPayloadBytes, remote.maxPayloadBytes, "both ends agree on the limit");
      const big = seqFrame(7, max);
      if (!local.send(SEQ, big)) await local.drained();
      const err = thrown(() => local.send(SEQ, new Uint8Array(max + 1)), "oversized send");
      assertError(err, Code.ResourceExhausted, "frame-too-large", "send of maxPayloadBytes + 1");
      local.send(MARK, new Uint8Array(0));
      await atRemote.count(2);
      assert.equal(atRemote.frames[0]?.type, SEQ);
      assert.ok(Buffer.from(big).equals(atRemote.frames[0]?.payload ?? new Uint8Array()));
      assert.equal(atRemote.frames[1]?.type, MARK);
      assert.equal(atRemote.frames.length, 2, "the refused frame was not sent");
      assert.equal(local.closed, false);
    });

    test("a bad frame type is INVALID_ARGUMENT unknown-frame-type and sends nothing", async ({
      local,
      remote,
    }) => {
      const atRemote = new Recorder(remote);
      new Recorder(local);
      for (const type of BAD_TYPES) {
        const err = thrown(() => local.send(type, new Uint8Array(1)), `send(${type})`);
        assertError(err, Code.InvalidArgument, "unknown-frame-type", `send type ${type}`);
        if (local.sendWith !== undefined)
          assert.equal(
            local.sendWith(type, () => 0),
            false,
            `sendWith(${type})`,
          );
      }
      // A type checked before the size: a bad type with an oversized payload says the type.
      const both = thrown(
        () => local.send(0x01, new Uint8Array(local.maxPayloadBytes + 1)),
        "bad type and size",
      );
      assertError(both, Code.InvalidArgument, "unknown-frame-type", "bad type and size");
      local.send(0x10, new Uint8Array(0));
      local.send(0xff, new Uint8Array(0));
      await atRemote.count(2);
      assert.deepEqual(
        atRemote.frames.map((f) => f.type),
        [0x10, 0xff],
      );
    });

    test("close() flushes what was sent; both ends close once; send then throws UNAVAILABLE peer-closed", async ({
      local,
      remote,
    }) => {
      const atLocal = new Recorder(local);
      const atRemote = new Recorder(remote);
      for (let i = 0; i < 1000; i++) local.send(SEQ, seqFrame(i, 100));
      await local.close();
      assert.equal(local.closed, true);
      assert.equal(await atLocal.closed(), undefined, "own clean close: onClose(undefined)");
      const peerErr = await atRemote.closed();
      if (peerErr !== undefined) assertError(peerErr, Code.Unavailable, "peer-closed", "peer end");
      assert.equal(atRemote.frames.length, 1000, "frames sent before close() all arrive");
      assert.ok(atRemote.frames.every((f, i) => readSeq(f.payload) === i));
      assert.equal(remote.closed, true);
      for (const ch of [local, remote]) {
        const err = thrown(() => ch.send(SEQ, new Uint8Array(1)), "send after close");
        assertError(err, Code.Unavailable, "peer-closed", "send after close");
        if (ch.sendWith !== undefined)
          assert.equal(
            ch.sendWith(SEQ, () => 0),
            false,
          );
      }
      await local.close();
      await local.drained();
      await sleep(20);
      assert.equal(atLocal.closeCount, 1);
      assert.equal(atRemote.closeCount, 1);
    });

    test(
      "close(error) ends the peer's channel with that code",
      async ({ local, remote }) => {
        const atLocal = new Recorder(local);
        const atRemote = new Recorder(remote);
        await local.close(new NearwireError(Code.Aborted, "suite abort"));
        assertError(await atLocal.closed(), Code.Aborted, undefined, "own close(error)");
        assertError(await atRemote.closed(), Code.Aborted, undefined, "peer of close(error)");
      },
      ["closeReason"],
    );

    test(
      "a crashed peer ends the channel UNAVAILABLE peer-closed, once",
      async (pair) => {
        const atLocal = new Recorder(pair.local);
        new Recorder(pair.remote);
        await pair.crash?.();
        assertError(await atLocal.closed(), Code.Unavailable, "peer-closed", "peer crash");
        assert.equal(pair.local.closed, true);
        const err = thrown(() => pair.local.send(SEQ, new Uint8Array(1)), "send after crash");
        assertError(err, Code.Unavailable, "peer-closed", "send after crash");
        await sleep(20);
        assert.equal(atLocal.closeCount, 1);
      },
      ["peerCrash"],
    );

    test("a paused receiver pushes back: send returns false, drained() waits, nothing is lost", async ({
      local,
      remote,
    }) => {
      const atRemote = new Recorder(remote);
      new Recorder(local);
      const seq = checkOrder(atRemote);
      remote.pause();
      const payload = new Uint8Array(1024);
      const view = new DataView(payload.buffer);
      let sent = 0;
      let pushedBack = false;
      // Bounded: a channel that never pushes back fails here rather than filling memory.
      while (sent < 100_000 && !pushedBack) {
        view.setUint32(0, sent++, true);
        pushedBack = !local.send(SEQ, payload);
      }
      assert.ok(pushedBack, `send never returned false (${sent} KiB to a paused peer)`);
      if (local.backpressured !== undefined) assert.equal(local.backpressured, true);
      let drained = false;
      const d = local.drained().then(() => {
        drained = true;
      });
      await sleep(100);
      assert.equal(drained, false, "drained() resolved while the peer was paused");
      remote.resume();
      await hangGuard(d, 20_000, "drained() after resume");
      await sendSequence(local, 1000, 64, sent);
      await waitFor("every frame", () => (seq.next() >= sent + 1000 ? true : undefined), {
        timeoutMs: 20_000,
        intervalMs: 5,
      });
      assert.equal(seq.gap(), undefined);
      assert.equal(seq.next(), sent + 1000);
    });

    test("pause() holds received frames; resume() delivers them in order", async ({
      local,
      remote,
    }) => {
      const atLocal = new Recorder(local);
      new Recorder(remote);
      local.pause();
      await sleep(10);
      for (let i = 0; i < 50; i++) remote.send(SEQ, seqFrame(i, 32));
      await sleep(100);
      assert.equal(atLocal.frames.length, 0, "frames delivered while paused");
      local.resume();
      await atLocal.count(50);
      assert.ok(atLocal.frames.every((f, i) => readSeq(f.payload) === i));
    });

    test(
      "sendWith writes in place, in order with send; -1 from fill sends nothing",
      async ({ local, remote }) => {
        const atRemote = new Recorder(remote);
        new Recorder(local);
        const sendWith = local.sendWith?.bind(local);
        assert.ok(sendWith !== undefined);
        let inPlace = 0;
        for (let i = 0; i < 200; i++) {
          const p = seqFrame(i, 40);
          if (i % 2 === 0) {
            const ok = sendWith(SEQ, (dest, offset, limit) => {
              if (limit < p.length) return -1;
              dest.set(p, offset);
              return p.length;
            });
            if (ok) inPlace++;
            else if (!local.send(SEQ, p)) await local.drained();
          } else if (!local.send(SEQ, p)) await local.drained();
        }
        assert.equal(
          sendWith(SEQ, () => -1),
          false,
          "fill gave up",
        );
        assert.ok(inPlace > 0, "no frame went through sendWith");
        local.send(MARK, new Uint8Array(0));
        await atRemote.count(201);
        assert.ok(atRemote.frames.slice(0, 200).every((f, i) => readSeq(f.payload) === i));
        assert.ok(atRemote.frames.slice(0, 200).every((f) => f.payload.length === 40));
        assert.equal(atRemote.frames[200]?.type, MARK);
        assert.equal(atRemote.frames.length, 201, "the refused fill sent nothing");
      },
      ["sendWith"],
    );
  });
}

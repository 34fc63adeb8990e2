import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep, setImmediate as turn } from "node:timers/promises";
import type { NearwireError } from "@nearwire/core";
import { RingChannel, segmentBytesFor } from "../src/index.js";

const RING = 1 << 16;

/**
 * Both ends of a ring channel in one thread: a bell is a call of the peer's hook on the next
 * microtask (what the control socket or `Atomics.notify` does between processes or threads).
 * Counts how often the receive loop parked and was woken.
 */
class LoopbackChannel extends RingChannel {
  peerChannel: LoopbackChannel | undefined;
  sleeps = 0;
  wakes = 0;
  /** Passes over the receive ring (each a poll, whether or not it found a record). */
  reads = 0;

  constructor(parts: ConstructorParameters<typeof RingChannel>[0]) {
    super(parts);
    const read = this.reader.read.bind(this.reader);
    this.reader.read = (sink, max) => {
      this.reads++;
      return read(sink, max);
    };
  }

  get asleep(): boolean {
    return this.sleeping;
  }

  protected ringData(): void {
    const p = this.peerChannel;
    if (p !== undefined) queueMicrotask(() => p.sleeping && p.state !== "closed" && p.wakeUp());
  }

  protected ringSpace(): void {
    const p = this.peerChannel;
    if (p !== undefined) queueMicrotask(() => p.flushPending());
  }

  protected sleep(): void {
    this.sleeping = true;
    this.sleeps++;
  }

  protected override wakeUp(): void {
    this.wakes++;
    super.wakeUp();
  }

  protected spaceBlocked(): void {}
  protected endCleanly(): void {}
  protected release(): void {}
  protected peerEndError(): NearwireError | undefined {
    return undefined;
  }
}

function loopbackPair(maxFrameBytes?: number): [LoopbackChannel, LoopbackChannel] {
  const buffer = new SharedArrayBuffer(segmentBytesFor(RING));
  const side = (sendRing: 0 | 1) =>
    new LoopbackChannel({
      buffer,
      ringBytes: RING,
      sendRing,
      wait: "adaptive",
      spinUs: 50,
      peer: `loopback-${sendRing}`,
      ...(maxFrameBytes === undefined ? {} : { maxFrameBytes }),
    });
  const a = side(0);
  const b = side(1);
  a.peerChannel = b;
  b.peerChannel = a;
  return [a, b];
}

/**
 * A loopback pair whose consumer answers every `every`-th record with a frame of `answerType`,
 * at once or `delayMs` later; `counts` has the records received and the answers that arrived.
 */
function answeringPair(answerType: number, every: number, delayMs?: number) {
  const [producer, consumer] = loopbackPair();
  const counts = { answers: 0, received: 0 };
  producer.start({ onFrame: () => counts.answers++, onClose: () => {} });
  consumer.start({
    onFrame: () => {
      if (++counts.received % every !== 0) return;
      const answer = () => consumer.send(answerType, Uint8Array.of(every));
      if (delayMs === undefined) answer();
      else setTimeout(answer, delayMs);
    },
    onClose: () => {},
  });
  return { producer, consumer, counts };
}

/**
 * A producer sending one 1 KiB record per millisecond (a producer waiting on its disk) while
 * its consumer answers every `every`-th record with a frame of `answerType`. From the third
 * window of 64 records on (the first ones set the ratio): the records sent while the producer's
 * receive loop was awake, how often it was woken and how many answers came.
 */
async function producerRun(
  answerType: number,
  every: number,
): Promise<{ awake: number[]; wakes: number; bells: number }> {
  const { producer, consumer, counts } = answeringPair(answerType, every);
  const record = new Uint8Array(1024);
  const awake: number[] = [];
  let wakesBefore = 0;
  let answersBefore = 0;
  for (let i = 0; i < 256; i++) {
    if (i === 128) {
      wakesBefore = producer.wakes;
      answersBefore = counts.answers;
    }
    // Sent while the loop is parked (it parks 50 µs after the last answer; a loaded machine
    // may take longer to get there).
    for (let waited = 0; !producer.asleep && waited < 100; waited++) await sleep(1);
    assert.equal(producer.send(0x10, record), true);
    if (i >= 128 && !producer.asleep) awake.push(i);
    await sleep(1);
  }
  while (counts.received < 256 || counts.answers < 256 / every) await turn();
  assert.equal(counts.answers, 256 / every);
  const result = {
    awake,
    wakes: producer.wakes - wakesBefore,
    bells: counts.answers - answersBefore,
  };
  await Promise.all([producer.close(), consumer.close()]);
  return result;
}

describe("RingChannel adaptive wait", () => {
  it("a side that only sends parks and stays parked; an answer wakes it", async () => {
    const [producer, consumer] = loopbackPair();
    const atConsumer: number[] = [];
    const atProducer: number[] = [];
    const closes: (NearwireError | undefined)[] = [];
    producer.start({
      onFrame: (_t, p) => atProducer.push(p[0] as number),
      onClose: (e) => closes.push(e),
    });
    consumer.start({
      onFrame: (_t, p) => atConsumer.push(p[0] as number),
      onClose: (e) => closes.push(e),
    });

    // 1000 records, one per event-loop turn (a producer waiting on its disk between chunks).
    const record = new Uint8Array(256);
    let wakesAtBulk = 0;
    for (let i = 0; i < 1000; i++) {
      record[0] = i & 0xff;
      assert.equal(producer.send(0x10, record), true, `record ${i} went into the ring`);
      if (i === 300) {
        assert.equal(producer.asleep, true, "parked once 64 records went with none back");
        wakesAtBulk = producer.wakes;
      }
      await turn();
    }
    // Its own sends did not wake it (only a data bell would, and the consumer sent nothing).
    assert.equal(producer.wakes, wakesAtBulk, "no wake-up from its own sends");
    assert.equal(producer.asleep, true);
    assert.ok(producer.sleeps >= 1);
    while (atConsumer.length < 1000) await turn();
    assert.deepEqual(
      atConsumer,
      Array.from({ length: 1000 }, (_, i) => i & 0xff),
      "every record arrived, in order",
    );

    // An answer rings the parked producer awake.
    assert.equal(consumer.send(0x10, Uint8Array.of(42)), true);
    while (atProducer.length === 0) await turn();
    assert.deepEqual(atProducer, [42]);
    assert.equal(producer.wakes, wakesAtBulk + 1, "woken once, by the answer's bell");
    assert.equal(producer.asleep, false);

    await Promise.all([producer.close(), consumer.close()]);
    assert.deepEqual(closes, [undefined, undefined]);
  });

  it("a producer answered with credit every 16 records still parks between sends", async () => {
    // One record per millisecond (a producer waiting on its disk), an answer (0x11) per 16.
    const { awake, wakes, bells } = await producerRun(0x11, 16);
    // The sends do not wake the parked loop: only the answers' bells do.
    assert.deepEqual(awake, [], `records sent while the loop was awake or woken by them: ${awake}`);
    // In the first window each send woke the parked loop; from the third on only a bell does.
    assert.ok(wakes <= bells, `woken ${wakes} times by ${bells} answers`);
  });
});

describe("RingChannel bulk producer", () => {
  it("CREDIT every 4 records (a 512 KiB window of 64 KiB chunks) does not keep it awake", async () => {
    // CREDIT (0x15) is not an answer: 64 records per window against none received.
    const { awake } = await producerRun(0x15, 4);
    assert.deepEqual(awake, [], `records sent while the loop was awake: ${awake}`);
  });

  it("another frame every 4 records is an answer: the producer stays a chase", async () => {
    // 16 answers per 64 records is above one per BULK_RATIO (8): each send keeps it spinning.
    const { awake } = await producerRun(0x11, 4);
    assert.ok(awake.length > 64, `records sent while the loop was awake: ${awake.length} of 128`);
  });
});

/**
 * A producer sending one 64 KiB record per millisecond (an uploading client reading its file)
 * to a consumer that answers every `every`-th record with a frame of `answerType` one
 * millisecond later (a server returning credit once its write is done). From the third window
 * of 64 records on: the consumer's passes over its ring per record, how often it was woken,
 * and the number of records that covers.
 */
async function consumerRun(
  answerType: number,
  every: number,
): Promise<{ readsPerRecord: number; wakes: number; records: number }> {
  const { producer, consumer, counts } = answeringPair(answerType, every, 1);
  const record = new Uint8Array(RING / 4);
  let readsBefore = 0;
  let wakesBefore = 0;
  for (let i = 0; i < 256; i++) {
    if (i === 128) {
      readsBefore = consumer.reads;
      wakesBefore = consumer.wakes;
    }
    assert.equal(producer.send(0x10, record), true);
    await sleep(1);
  }
  while (counts.received < 256 || counts.answers < 256 / every) await turn();
  const result = {
    readsPerRecord: (consumer.reads - readsBefore) / 128,
    wakes: consumer.wakes - wakesBefore,
    records: 128,
  };
  await Promise.all([producer.close(), consumer.close()]);
  return result;
}

describe("RingChannel bulk consumer", () => {
  it("receiving records and returning only CREDIT, it parks instead of spinning for the next", async () => {
    const { readsPerRecord, wakes, records } = await consumerRun(0x15, 4);
    // A delivery is followed by the chase's hops and one pump pass of 16 polls, then it parks
    // (a spin of 50 µs after each record would be hundreds of polls).
    assert.ok(readsPerRecord <= 40, `${readsPerRecord} passes over the ring per record`);
    // Only the records' bells wake it: its own CREDITs (sent while parked) do not.
    assert.ok(wakes <= records, `woken ${wakes} times for ${records} records`);
  });

  it("answering every 4th record with another frame, it spins for the next as before", async () => {
    const { readsPerRecord } = await consumerRun(0x11, 4);
    assert.ok(readsPerRecord > 40, `${readsPerRecord} passes over the ring per record`);
  });
});

describe("RingChannel sendWith without room in the ring", () => {
  it("encodes into its scratch, writes or queues it without a copy; every frame arrives intact, in order", async () => {
    // Frames from 1 B to 3 rings long (fragments), sent back to back while the consumer reads
    // only between event-loop turns: most find no contiguous room for themselves.
    const [producer, consumer] = loopbackPair(4 * RING);
    const sizes = [1, 100, 40_000, RING / 2 - 16, 70_000, 3 * RING, 5, 2 * RING + 123, 30_000];
    const frames = Array.from({ length: 60 }, (_, i) => {
      const n = sizes[i % sizes.length] as number;
      return Uint8Array.from({ length: n }, (_, j) => (i * 31 + j * 7) & 0xff);
    });
    const got: Uint8Array[] = [];
    const closes: (NearwireError | undefined)[] = [];
    producer.start({ onFrame: () => {}, onClose: (e) => closes.push(e) });
    consumer.start({
      onFrame: (type, p) => {
        assert.equal(type, 0x20);
        got.push(p.slice());
      },
      onClose: (e) => closes.push(e),
    });

    let queuedOnce = false;
    let fills = 0;
    for (const frame of frames) {
      const fill = (dest: Uint8Array, offset: number, limit: number) => {
        fills++;
        if (frame.byteLength > limit) return -1;
        dest.set(frame, offset);
        return frame.byteLength;
      };
      // sendWith takes every frame while nothing is queued: into the ring, or through the
      // scratch; false only while earlier frames wait, and then the queue drains first.
      while (!producer.sendWith(0x20, fill)) {
        assert.equal(producer.backpressured, true, "refused only while frames are queued");
        await producer.drained();
      }
      if (producer.backpressured) queuedOnce = true;
      // A queued frame may be a view of the scratch: nothing may write into it until it is in
      // the ring, and the scratch is only used while the queue is empty.
      await turn();
    }
    assert.ok(queuedOnce, "some frame found the ring full and was queued");
    assert.ok(fills > frames.length, "some frames were encoded a second time, into the scratch");
    await producer.drained();
    while (got.length < frames.length) await turn();
    assert.equal(got.length, frames.length);
    for (let i = 0; i < frames.length; i++)
      assert.deepEqual(got[i], frames[i], `frame ${i} (${frames[i]?.byteLength} B) intact`);
    assert.equal(producer.backpressured, false);

    await Promise.all([producer.close(), consumer.close()]);
    assert.deepEqual(closes, [undefined, undefined]);
  });
});

describe("RingChannel sendWith while frames are queued", () => {
  it("encodes into pooled buffers given back once written: no buffer per frame; each stream's frames intact, in order", async () => {
    // Ten senders on one channel, as ten streams of the engine: each sends a frame (through
    // `send` when sendWith refuses, as the engine does) and waits for the queue to drain when
    // the channel is backpressured, so up to ten frames wait in the queue at once.
    const [producer, consumer] = loopbackPair();
    const FRAME = 20_000;
    const SENDERS = 10;
    const PER_SENDER = 30;
    const frameOf = (sender: number, seq: number, into: Uint8Array, at: number) => {
      into[at] = sender;
      into[at + 1] = seq;
      for (let j = 2; j < FRAME; j++) into[at + j] = (sender * 31 + seq * 7 + j) & 0xff;
    };
    const nextSeq = new Array<number>(SENDERS).fill(0);
    let received = 0;
    let bad = 0;
    consumer.start({
      onFrame: (type, p) => {
        const sender = p[0] as number;
        const seq = p[1] as number;
        let ok = type === 0x20 && p.byteLength === FRAME && seq === nextSeq[sender];
        for (let j = 2; ok && j < FRAME; j++) ok = p[j] === ((sender * 31 + seq * 7 + j) & 0xff);
        if (!ok) bad++;
        nextSeq[sender] = seq + 1;
        received++;
      },
      onClose: () => {},
    });
    producer.start({ onFrame: () => {}, onClose: () => {} });
    let refused = 0;
    /** Frames sent while others waited in the queue. */
    let spilled = 0;
    const round = async (base: number) => {
      const sender = async (id: number) => {
        for (let i = 0; i < PER_SENDER; i++) {
          const seq = base + i;
          const fill = (dest: Uint8Array, offset: number, limit: number) => {
            if (FRAME > limit) return -1;
            frameOf(id, seq, dest, offset);
            return FRAME;
          };
          if (producer.backpressured) spilled++;
          if (!producer.sendWith(0x20, fill)) {
            refused++;
            const frame = new Uint8Array(FRAME);
            frameOf(id, seq, frame, 0);
            producer.send(0x20, frame);
          }
          if (producer.backpressured) await producer.drained();
          else await turn();
        }
      };
      await Promise.all(Array.from({ length: SENDERS }, (_, id) => sender(id)));
      await producer.drained();
      while (received < SENDERS * (base + PER_SENDER)) await turn();
    };
    await round(0); // the spill buffers are made, and their size learnt (refused meanwhile)
    const refusedFirst = refused;
    assert.ok(refusedFirst >= 1, "a frame over the first spill size was refused");
    // Second round: count byte arrays of 4 KiB or more made (constructed or sliced).
    const spilledFirst = spilled;
    let made = 0;
    const g = globalThis as { Uint8Array: Uint8ArrayConstructor };
    const Saved = g.Uint8Array;
    const slice = Saved.prototype.slice;
    g.Uint8Array = new Proxy(Saved, {
      construct(target, args, newTarget) {
        if (typeof args[0] === "number" && args[0] >= 4096) made++;
        return Reflect.construct(target, args, newTarget);
      },
    });
    Saved.prototype.slice = function (this: Uint8Array, ...args: [number?, number?]) {
      const out = slice.apply(this, args);
      if (out.byteLength >= 4096) made++;
      return out;
    };
    try {
      await round(PER_SENDER);
    } finally {
      g.Uint8Array = Saved;
      Saved.prototype.slice = slice;
    }
    assert.equal(bad, 0, "every frame intact and in its sender's order");
    assert.equal(received, SENDERS * 2 * PER_SENDER);
    assert.equal(refused, refusedFirst, "no frame refused once the spill size was learnt");
    // The pool grows to the most frames queued at once, one per sender at most: a round that
    // queues more at once than the first made one or two on a loaded machine. A buffer per
    // queued frame (two, as before: the frame and the queue's copy) would be hundreds.
    const spilledSecond = spilled - spilledFirst;
    assert.ok(spilledSecond >= 50, `frames sent while others were queued: ${spilledSecond}`);
    assert.ok(
      made <= SENDERS,
      `buffers of 4 KiB or more made in the second round: ${made}, for ${spilledSecond} frames queued`,
    );
    assert.equal(producer.backpressured, false);
    await Promise.all([producer.close(), consumer.close()]);
  });
});

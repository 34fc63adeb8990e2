import type { MessagePort, Worker } from "node:worker_threads";
import { seededBytes } from "@nearwire/conformance/seeded";
import type { CaseSpec } from "./case-spec.js";
import type { BenchClient } from "./endpoint.js";
import { ReplyQueue } from "./endpoint.js";

/**
 * Baseline of the worker rows: the only channel Node.js gives two threads,
 * `MessagePort.postMessage`, written as a careful user would. The client posts the payload (a
 * `Uint8Array`, structured-cloned through the event loop) to a worker thread that posts it
 * back; `{ stream: count, size }` asks the worker to post `count` payloads of `size` bytes.
 */

/** The worker-thread side: echoes every Uint8Array, answers stream requests. */
export function servePostMessageEcho(port: MessagePort): void {
  port.on("message", (m: Uint8Array | { stream: number; size: number }) => {
    if (m instanceof Uint8Array) {
      port.postMessage(m);
      return;
    }
    const payload = seededBytes(7, m.size);
    for (let i = 0; i < m.stream; i++) port.postMessage(payload);
  });
}

/** The client side, over the worker running {@link servePostMessageEcho}. */
export function connectPostMessage(worker: Worker, spec: CaseSpec, seed: number): BenchClient {
  const replies = new ReplyQueue();
  let streamLeft = 0;
  let streamDone: (() => void) | undefined;
  const payload = seededBytes(seed, spec.payloadBytes);
  worker.on("message", () => {
    if (streamLeft > 0) {
      if (--streamLeft === 0) streamDone?.();
    } else replies.reply();
  });
  worker.on("error", (err) => replies.fail(err));
  return {
    wireBytes: payload.byteLength,
    roundTrip() {
      const p = replies.next();
      worker.postMessage(payload);
      return p;
    },
    stream(count) {
      return new Promise<void>((resolve) => {
        streamLeft = count;
        streamDone = resolve;
        worker.postMessage({ stream: count, size: spec.payloadBytes });
      });
    },
    close: async () => {},
  };
}

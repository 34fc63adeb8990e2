import { MessageChannel, type MessagePort } from "node:worker_threads";
import { channelSuite } from "@nearwire/conformance";
import type { Channel } from "@nearwire/core";
import { createWorkerChannelProvider, type WaitMode } from "../src/index.js";

// The Channel contract (@nearwire/conformance channelSuite) in each wait mode, both ends on this
// thread over a MessageChannel (as two workers would hold it); channel.test.ts goes across threads.
async function workerPair(wait: WaitMode, batches = { connector: false, listener: false }) {
  const { port1, port2 } = new MessageChannel();
  let onLocal!: (ch: Channel) => void;
  const accepted = new Promise<Channel>((r) => {
    onLocal = r;
  });
  const listener = await createWorkerChannelProvider({
    port: port1,
    wait,
    batches: batches.listener,
  }).listen(onLocal);
  const remote = await createWorkerChannelProvider({
    port: port2,
    wait,
    batches: batches.connector,
  }).connect();
  return {
    local: await accepted,
    remote,
    // A dead thread's connection port closes with no end state written in the segment.
    crash: () => void (remote as unknown as { port: MessagePort }).port.close(),
    dispose: async () => {
      await listener.close();
      port1.close();
    },
  };
}

for (const wait of ["adaptive", "spin", "park"] as const) {
  channelSuite({
    name: `worker (${wait})`,
    factory: () => workerPair(wait),
    batchesFactory: (batches) => workerPair(wait, batches),
    supports: { closeReason: true, peerCrash: true, sendWith: true },
    ...(wait === "adaptive" ? {} : { frames: 10_000 }),
  });
}

import { memoryChannelPair } from "@nearwire/core/transport-kit";
import { channelSuite } from "../src/index.js";

// core's in-process memory channel (the one under createMemoryTransport) runs the channel suite.
channelSuite({
  name: "memory",
  factory: async () => {
    const [local, remote] = memoryChannelPair({
      maxPayloadBytes: 1024 * 1024,
      highWaterMarkBytes: 256 * 1024,
    });
    return { local, remote };
  },
  supports: { closeReason: true, peerCrash: false, sendWith: true },
});

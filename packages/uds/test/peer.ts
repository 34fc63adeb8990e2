/**
 * Child-process peer for the uds tests: `peer.ts server <address>` listens and prints
 * `listening <address>`; each accepted channel follows the commands below. Exits when stdin ends.
 *
 * Frames from the test:  0x80 u32 seq     sequence frame; checked, counted
 *                        0x81 u32 N       send N sequence frames back, then 0x82 u32 received
 *                        0x83             pause this channel (until stdin line "resume")
 *                        0x84             reply 0x85 u32 received
 * A sequence gap makes the peer send 0x8f and close the channel with an error.
 */
import { createInterface } from "node:readline";
import { type Channel, Code, NearwireError } from "@nearwire/core";
import { createUdsChannelProvider } from "../src/index.js";

const [mode, address] = process.argv.slice(2);
if (mode !== "server" || address === undefined) throw new Error("usage: peer.ts server <address>");

const channels = new Set<Channel>();

function u32(n: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

async function stream(channel: Channel, n: number, received: () => number): Promise<void> {
  const payload = new Uint8Array(64);
  const view = new DataView(payload.buffer);
  for (let i = 0; i < n; i++) {
    view.setUint32(0, i);
    if (!channel.send(0x80, payload)) await channel.drained();
  }
  channel.send(0x82, u32(received()));
}

const provider = createUdsChannelProvider({ address });
const listener = await provider.listen((channel) => {
  channels.add(channel);
  let expected = 0;
  channel.start({
    onFrame(type, payload) {
      const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
      if (type === 0x80) {
        const seq = view.getUint32(0);
        if (seq !== expected) {
          channel.send(0x8f, u32(seq));
          void channel.close(new NearwireError(Code.DataLoss, `seq ${seq} != ${expected}`));
          return;
        }
        expected++;
      } else if (type === 0x81) {
        void stream(channel, view.getUint32(0), () => expected);
      } else if (type === 0x83) {
        channel.pause();
      } else if (type === 0x84) {
        channel.send(0x85, u32(expected));
      }
    },
    onClose() {
      channels.delete(channel);
    },
  });
});
process.stdout.write(`listening ${listener.address}\n`);

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  if (line === "resume") for (const c of channels) c.resume();
});
rl.on("close", async () => {
  await listener.close();
  await Promise.all([...channels].map((c) => c.close()));
  process.exit(0);
});

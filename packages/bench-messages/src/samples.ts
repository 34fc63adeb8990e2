/** Sample bench messages of realistic size and content, deterministic from a seed. */
import type { Chunk, Metric, Request, Tick } from "./messages.js";

/**
 * A {@link Chunk} of `dataBytes` bytes (0 to 2^31-1; the bench uses 64 B to 1 MiB) with a
 * deterministic pattern, sequence number `seq` (default 0) and `last` false.
 */
export function makeChunk(dataBytes: number, seq = 0): Chunk {
  const data = new Uint8Array(dataBytes);
  for (let i = 0; i < dataBytes; i++) data[i] = (i * 31 + seq) & 0xff;
  return { seq, last: false, data };
}

/** Representative values of the four bench messages. */
export const sampleMessages: {
  readonly tick: Tick;
  readonly request: Request;
  readonly metric: Metric;
  readonly chunk: Chunk;
} = {
  tick: {
    symbolId: 4711,
    seq: 123_456_789,
    timestampNs: 86_400_123_456_789,
    bid: 101.25,
    ask: 101.27,
    bidSize: 300,
    askSize: 500,
    flags: 1,
  },
  request: {
    id: "req-7f3a9c2e-0b41-4d8e-9a63-51c2e8f0d7b4",
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    method: "/nearwire.bench.Orders/PlaceOrder",
    user: "trader-0042@desk.example",
    tags: ["region:eu-west", "tier:gold", "retry:0", "client:web"],
    deadlineMs: 1_700_000_005_000,
    priority: 3,
    body: Uint8Array.from({ length: 32 }, (_, i) => (i * 7) & 0xff),
  },
  metric: {
    timestampMs: 1_700_000_000_000,
    name: "http.server.request.duration",
    value: 12.5,
    tags: { service: "gateway", route: "/orders", method: "POST", status: "200", host: "box-01" },
  },
  chunk: makeChunk(64 * 1024, 7),
};

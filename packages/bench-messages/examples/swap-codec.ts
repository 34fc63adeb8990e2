/**
 * Two services on one server, each with its own codec, chosen by configuration only:
 *
 *   MARKET_CODEC=raw TELEMETRY_CODEC=json node --import tsx examples/swap-codec.ts serve
 *   MARKET_CODEC=raw TELEMETRY_CODEC=json node --import tsx examples/swap-codec.ts call
 *
 * Change MARKET_CODEC to protobuf (on both sides) and the same handlers run unchanged.
 * Codec names: json, msgpack, protobuf, flatbuffers, raw. NEARWIRE_ADDRESS picks the socket.
 */
import { type Codec, codeName, defineService, NearwireError, unary } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import {
  benchCodecs,
  type Metric,
  MetricType,
  sampleMessages,
  type Tick,
  TickType,
} from "../src/index.js";

export const MarketData = defineService("nearwire.example.MarketData", {
  latest: unary(TickType, TickType),
});
export const Telemetry = defineService("nearwire.example.Telemetry", {
  record: unary(MetricType, MetricType),
});

/** The handlers: written once, never aware of the codec. */
const marketData = { latest: (t: Tick): Tick => ({ ...t, seq: t.seq + 1 }) };
const telemetry = { record: (m: Metric): Metric => ({ ...m, tags: { ...m.tags, seen: "yes" } }) };

function codec(variable: string): Codec {
  const name = (process.env[variable] ?? "json") as keyof typeof benchCodecs;
  const c = benchCodecs[name];
  if (c === undefined)
    throw new Error(`${variable}=${name}: not one of ${Object.keys(benchCodecs).join(", ")}`);
  return c;
}

const transport = createUdsTransport({
  address: process.env.NEARWIRE_ADDRESS ?? "/tmp/nearwire-swap.sock",
});

if (process.argv[2] === "serve") {
  const server = transport
    .createServer()
    .addService(MarketData, marketData, { codec: codec("MARKET_CODEC") })
    .addService(Telemetry, telemetry, { codec: codec("TELEMETRY_CODEC") });
  await server.listen();
  console.log(
    `serving MarketData (${codec("MARKET_CODEC").name}) and Telemetry (${codec("TELEMETRY_CODEC").name})`,
  );
  process.once("SIGTERM", () => void server.close({ graceMs: 1000 }));
} else {
  const connection = await transport.connect();
  const market = connection.client(MarketData, { codec: codec("MARKET_CODEC") });
  const metrics = connection.client(Telemetry, { codec: codec("TELEMETRY_CODEC") });
  try {
    const tick = await market.latest(sampleMessages.tick);
    const metric = await metrics.record(sampleMessages.metric);
    console.log(JSON.stringify({ seq: tick.seq, symbolId: tick.symbolId, seen: metric.tags.seen }));
  } catch (err) {
    if (!(err instanceof NearwireError)) throw err;
    console.error(`call failed: ${codeName(err.code)}: ${err.message}`);
    process.exitCode = 1;
  } finally {
    await connection.close();
  }
}

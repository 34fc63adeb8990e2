import { transportSuite } from "../src/index.js";

// The suite against a minimal reference channel (test/fixtures/net-channel.ts) under core's
// RPC engine: proves the suite runs, and lists what the engine itself fails.
transportSuite({
  name: "reference net channel + core RPC engine (path)",
  factoryModule: new URL("./fixtures/net-ref-factory.ts", import.meta.url).href,
  address: (tmp) => tmp.socketPath(),
  knownFailures: new URL("./fixtures/net-ref-known-failures.txt", import.meta.url),
});

// The same transport with another codec, loaded by module in both processes.
transportSuite({
  name: "reference net channel + core RPC engine, marked-json codec (abstract)",
  factoryModule: new URL("./fixtures/net-ref-factory.ts", import.meta.url).href,
  address: (tmp) => tmp.abstractName(),
  codec: { module: new URL("./fixtures/marked-json-codec.ts", import.meta.url).href },
  only: ["call kinds", "limits"],
});

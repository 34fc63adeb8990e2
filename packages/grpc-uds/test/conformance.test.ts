import { transportSuite } from "@nearwire/conformance";

// The shared conformance suite (@nearwire/conformance) over each address kind of grpc-uds.
const factoryModule = new URL("./fixtures/grpc-factory.ts", import.meta.url).href;

/** Every suite file but the 3 × 100,000-message ordering suite. */
const ALL_BUT_ORDERING = [
  "lifecycle",
  "call kinds",
  "deadlines",
  "cancellation",
  "limits",
  "backpressure",
  "peer death",
  "unknown method",
] as const;

transportSuite({
  name: "grpc-uds (path)",
  factoryModule,
  address: (tmp) => tmp.socketPath(),
  supports: { channelLayer: false, crossHost: false },
});

// The abstract-name and TCP variants skip only the 3 × 100,000-message ordering suite (~40 s of
// grpc-js HTTP/2 streaming each, identical whatever the socket address); the path runs
// everything.
transportSuite({
  name: "grpc-uds (abstract)",
  factoryModule,
  address: (tmp) => tmp.abstractName(),
  supports: { channelLayer: false, crossHost: false },
  only: [...ALL_BUT_ORDERING],
});

transportSuite({
  name: "grpc-uds (tcp loopback)",
  factoryModule,
  address: (tmp) => tmp.tcpAddress(),
  supports: { channelLayer: false, crossHost: true },
  only: [...ALL_BUT_ORDERING],
});

import { transportSuite } from "@nearwire/conformance";

// The shared conformance suite (@nearwire/conformance) over each address kind of grpc-uds.
const factoryModule = new URL("./fixtures/grpc-factory.js", import.meta.url).href;

transportSuite({
  name: "grpc-uds (path)",
  factoryModule,
  address: (tmp) => tmp.socketPath(),
  // 20,000 messages per call kind, not the default 100,000: what is ordered here is grpc-js's
  // HTTP/2 streams, under nearwire's handler wrapper; 3 × 100,000 took 36 s of a CI run's
  // 120 s for this package. The transports on nearwire's own engine run the full count.
  orderingMessages: 20_000,
});

// The abstract-name and TCP variants run the suites where the address matters; the engine
// suites (ordering, deadlines, limits, backpressure, …) are identical whatever the socket
// address and run once, on the path.
transportSuite({
  name: "grpc-uds (abstract)",
  factoryModule,
  address: (tmp) => tmp.abstractName(),
  addressVariant: true,
});

transportSuite({
  name: "grpc-uds (tcp loopback)",
  factoryModule,
  address: (tmp) => tmp.tcpAddress(),
  addressVariant: true,
});

import { transportSuite } from "@nearwire/conformance";

// The shared conformance suite (@nearwire/conformance) over each address kind of grpc-uds.
const factoryModule = new URL("./fixtures/grpc-factory.ts", import.meta.url).href;

transportSuite({
  name: "grpc-uds (path)",
  factoryModule,
  address: (tmp) => tmp.socketPath(),
});

// The abstract-name and TCP variants run the suites where the address matters; the engine
// suites (the 3 × 100,000-message ordering suite, ~40 s of grpc-js HTTP/2 streaming, deadlines,
// limits, backpressure, …) are identical whatever the socket address and run once, on the path.
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

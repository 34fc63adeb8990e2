import { transportSuite } from "@nearwire/conformance";

// The shared conformance suite (@nearwire/conformance) over each address kind of uds.
const factoryModule = new URL("./fixtures/uds-factory.js", import.meta.url).href;

transportSuite({
  name: "uds (path)",
  factoryModule,
  address: (tmp) => tmp.socketPath(),
});

// The abstract-name and TCP variants run the suites where the address matters; the engine
// suites (ordering, deadlines, limits, backpressure, …) run once, on the path.
transportSuite({
  name: "uds (abstract)",
  factoryModule,
  address: (tmp) => tmp.abstractName(),
  addressVariant: true,
});

transportSuite({
  name: "uds (tcp loopback)",
  factoryModule,
  address: (tmp) => tmp.tcpAddress(),
  addressVariant: true,
});

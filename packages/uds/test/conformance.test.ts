import { transportSuite } from "@nearwire/conformance";

// The shared conformance suite (@nearwire/conformance) over each address kind of uds.
const factoryModule = new URL("./fixtures/uds-factory.ts", import.meta.url).href;

transportSuite({
  name: "uds (path)",
  factoryModule,
  address: (tmp) => tmp.socketPath(),
});

transportSuite({
  name: "uds (abstract)",
  factoryModule,
  address: (tmp) => tmp.abstractName(),
});

transportSuite({
  name: "uds (tcp loopback)",
  factoryModule,
  address: (tmp) => tmp.tcpAddress(),
});

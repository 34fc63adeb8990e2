import { transportSuite } from "@nearwire/conformance";

// The shared conformance suite (@nearwire/conformance) over each address kind of grpc-uds.
const factoryModule = new URL("./fixtures/grpc-factory.ts", import.meta.url).href;

transportSuite({
  name: "grpc-uds (path)",
  factoryModule,
  address: (tmp) => tmp.socketPath(),
  supports: { channelLayer: false, crossHost: false },
});

transportSuite({
  name: "grpc-uds (abstract)",
  factoryModule,
  address: (tmp) => tmp.abstractName(),
  supports: { channelLayer: false, crossHost: false },
});

transportSuite({
  name: "grpc-uds (tcp loopback)",
  factoryModule,
  address: (tmp) => tmp.tcpAddress(),
  supports: { channelLayer: false, crossHost: true },
});

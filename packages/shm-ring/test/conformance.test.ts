import { transportSuite } from "@nearwire/conformance";

// The shared conformance suite (@nearwire/conformance) over shm-ring, default (adaptive) waiting.
transportSuite({
  name: "shm-ring (adaptive)",
  factoryModule: new URL("./fixtures/shm-factory.js", import.meta.url).href,
  address: (tmp) => tmp.socketPath(),
});

import { transportSuite } from "@nearwire/conformance";

// The conformance suite over threads: each server is a worker thread of this (test) process,
// the client the main thread (conformance's thread harness). A client in another process
// cannot reach a thread, so the client-death test is switched off (the thread version:
// pool.test.ts and transport.test.ts terminate workers mid-call; two-workers.test.ts runs
// between two workers).
transportSuite({
  name: "worker (adaptive, server in a worker thread)",
  factoryModule: new URL("./fixtures/conformance-factory.js", import.meta.url).href,
  address: (tmp) => tmp.threadAddress(),
  serverIn: "thread",
  supports: { clientProcesses: false },
});

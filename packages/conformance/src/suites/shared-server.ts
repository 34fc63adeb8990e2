/** A server child and one connection shared by the tests of one suite file. */
import { after, before } from "node:test";
import type { TransportFactoryOptions } from "../module-refs.js";
import type { Connected, ServerHandle, SuiteHarness } from "../suite-harness.js";

/** A server child and one connection to it, shared by the tests of one suite file. */
export interface SharedServer {
  readonly server: ServerHandle;
  readonly c: Connected;
}

/**
 * Registers `before`/`after` hooks in the current `describe` that start a server child (with
 * `factoryOptions` on both sides) and connect to it, and that stop both afterwards (failing if
 * the server does not shut down cleanly).
 */
export function sharedServer(
  h: SuiteHarness,
  factoryOptions?: TransportFactoryOptions,
): SharedServer {
  let server: ServerHandle | undefined;
  let c: Connected | undefined;
  before(async () => {
    server = await h.startServer(factoryOptions === undefined ? {} : { factoryOptions });
    c = await h.connect(server.address, factoryOptions);
  });
  after(async () => {
    await h.disconnect(c);
    await server?.stop();
  });
  return {
    get server() {
      if (server === undefined) throw new Error("server not started");
      return server;
    },
    get c() {
      if (c === undefined) throw new Error("not connected");
      return c;
    },
  };
}

let tagCounter = 0;

/** A tag unique in this process, for the server's per-tag stats. */
export function newTag(what: string): string {
  return `${what}-${process.pid}-${++tagCounter}`;
}

/** Values that make `CountRequest` fields explicit. */
export function countRequest(
  tag: string,
  n: number,
  payloadBytes = 0,
  failAfter = 0,
  failCode = 0,
) {
  return { tag, n, payloadBytes, failAfter, failCode };
}

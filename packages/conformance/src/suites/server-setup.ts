/**
 * Server set-up misuse: the same typed error (code, no reason) on every transport, thrown by
 * `addService` / `listen` before anything is served, and the server left as it was.
 */
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  Code,
  codeName,
  defineService,
  type NearwireError,
  type Server,
  type ServiceDefinition,
} from "@nearwire/core";
import { createConformanceHandlers } from "../conformance-handlers.js";
import { conformanceService, unknownService } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { assertNearwireError } from "../wait.js";

const S = "server setup";

/** A service whose method path is 256+ UTF-8 bytes (the REQUEST frame's path is a u8 length). */
const longPathService = defineService(`nearwire.conformance.${"L".repeat(240)}`, {
  echo: conformanceService.methods.echo,
});

/** Calls `fn`, which must throw a NearwireError of `code` with no reason. */
async function refused(fn: () => unknown, code: Code, what: string): Promise<NearwireError> {
  try {
    await fn();
  } catch (err) {
    assertNearwireError(err, what);
    assert.equal(codeName(err.code), codeName(code), `${what}: ${err.message}`);
    assert.equal(err.reason, undefined, `${what}: reason`);
    return err;
  }
  assert.fail(`${what}: did not throw`);
}

/** Registers the server set-up misuse tests. */
export function serverSetupSuite(h: SuiteHarness): void {
  describe(S, () => {
    /** A server on a fresh address of this transport, in the test process. */
    async function newServer(): Promise<{ server: Server }> {
      return { server: (await h.transport(await h.newAddress())).createServer() };
    }

    /** Listens, makes one echo call, closes: the server still works after a refusal. */
    async function serves(server: Server): Promise<void> {
      await server.listen();
      try {
        const c = await h.connect(server.address);
        assert.equal((await c.client.echo({ id: 1, text: "still" })).text, "still");
        await h.disconnect(c);
      } finally {
        await server.close({ graceMs: 0 });
      }
    }

    function add(server: Server, service: ServiceDefinition, impl: object): void {
      server.addService(service, impl as never, { codec: h.codec });
    }

    h.test(S, "a missing handler is INVALID_ARGUMENT and adds nothing of the service", async () => {
      const { server } = await newServer();
      const { sum: _, ...partial } = createConformanceHandlers();
      await refused(
        () => add(server, conformanceService, partial),
        Code.InvalidArgument,
        "missing",
      );
      add(server, conformanceService, createConformanceHandlers());
      await serves(server);
    });

    h.test(S, "a handler that is not a function is INVALID_ARGUMENT", async () => {
      const { server } = await newServer();
      const impl = { ...createConformanceHandlers(), echo: "not a function" };
      await refused(() => add(server, conformanceService, impl), Code.InvalidArgument, "not fn");
      add(server, conformanceService, createConformanceHandlers());
      await serves(server);
    });

    h.test(S, "the same service twice is ALREADY_EXISTS; the first stays served", async () => {
      const { server } = await newServer();
      add(server, conformanceService, createConformanceHandlers());
      await refused(
        () => add(server, conformanceService, createConformanceHandlers()),
        Code.AlreadyExists,
        "second addService",
      );
      await serves(server);
    });

    h.test(S, "a method path over 255 bytes is INVALID_ARGUMENT", async () => {
      const { server } = await newServer();
      await refused(
        () => add(server, longPathService, createConformanceHandlers()),
        Code.InvalidArgument,
        "long path",
      );
      add(server, conformanceService, createConformanceHandlers());
      await serves(server);
    });

    h.test(S, "addService after listen and a second listen are FAILED_PRECONDITION", async () => {
      const { server } = await newServer();
      add(server, conformanceService, createConformanceHandlers());
      await server.listen();
      try {
        await refused(
          () => add(server, unknownService, { echo: () => ({}) }),
          Code.FailedPrecondition,
          "addService after listen",
        );
        await refused(() => server.listen(), Code.FailedPrecondition, "second listen");
        const c = await h.connect(server.address);
        assert.equal((await c.client.echo({ id: 2, text: "on" })).text, "on");
        await h.disconnect(c);
      } finally {
        await server.close({ graceMs: 0 });
      }
    });
  });
}

/** Suite: listen, connect, close, graceful shutdown and restart on one address. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { type ClientConnection, Code } from "@nearwire/core";
import { closedByCaller } from "@nearwire/core/transport-kit";
import { createConformanceHandlers } from "../conformance-handlers.js";
import { conformanceService } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { expectCode, hangGuard, waitFor } from "../wait.js";
import { newTag } from "./shared-server.js";

const S = "lifecycle";

/** listen / connect / close, graceful server close, client close, restart on one address. */
export function lifecycleSuite(h: SuiteHarness): void {
  describe(S, () => {
    h.test(S, "listen, connect, call, and close cleanly on both sides", async () => {
      const server = await h.startServer();
      const c = await h.connect(server.address);
      assert.equal((await c.client.echo({ id: 1, text: "hi" })).text, "hi");
      await h.disconnect(c);
      assert.equal(
        await hangGuard(c.conn.closed, 5000, "connection.closed"),
        undefined,
        "a clean close resolves closed with undefined",
      );
      await server.stop();
    });

    h.test(S, "connect to an address nobody listens on → UNAVAILABLE", async () => {
      const address = await h.newAddress();
      const transport = await h.transport(address);
      await expectCode(
        hangGuard(transport.connect(), 10_000, "connect"),
        Code.Unavailable,
        `connect(${address})`,
      );
    });

    h.test(
      S,
      "graceful server close lets an in-flight call finish, then calls fail UNAVAILABLE",
      async () => {
        const server = await h.startServer({ graceMs: 10_000 });
        const c = await h.connect(server.address);
        try {
          const tag = newTag("graceful");
          const call = c.client.sleep({ tag, ms: 1000 });
          await waitFor("the sleep handler to start", async () =>
            (await c.client.stats({ tag })).tagStarted >= 1 ? true : undefined,
          );
          server.child.signal("SIGTERM");
          await server.child.waitForLine("CLOSING", 5000);
          const reply = await hangGuard(call, 10_000, "the in-flight call");
          assert.equal(reply.aborted, false, "the in-flight call ran to its end");
          await server.stop();
          await expectCode(
            hangGuard(c.client.echo({ id: 1, text: "x" }), 5000, "a call after close"),
            Code.Unavailable,
            "a call after the server closed",
          );
          const transport = await h.transport(server.address);
          await expectCode(
            hangGuard(transport.connect(), 10_000, "connect"),
            Code.Unavailable,
            "connect after the server closed",
          );
        } finally {
          await h.disconnect(c);
          await server.kill();
        }
      },
    );

    h.test(
      S,
      "during a graceful close, a new call on an open connection fails UNAVAILABLE",
      async () => {
        const server = await h.startServer({ graceMs: 10_000 });
        const c = await h.connect(server.address);
        try {
          const tag = newTag("draining");
          const call = c.client.sleep({ tag, ms: 1500 });
          await waitFor("the sleep handler to start", async () =>
            (await c.client.stats({ tag })).tagStarted >= 1 ? true : undefined,
          );
          server.child.signal("SIGTERM");
          await server.child.waitForLine("CLOSING", 5000);
          await expectCode(
            hangGuard(c.client.echo({ id: 1, text: "late" }), 10_000, "a call while draining"),
            Code.Unavailable,
            "a call while the server drains",
          );
          assert.equal((await hangGuard(call, 10_000, "the in-flight call")).aborted, false);
          await server.stop();
        } finally {
          await h.disconnect(c);
          await server.kill();
        }
      },
    );

    h.test(
      S,
      "closing the client fails its in-flight and later calls CANCELLED closed, the same text on every transport; the server sees the abort",
      async () => {
        const server = await h.startServer();
        const c = await h.connect(server.address);
        const observer = await h.connect(server.address);
        try {
          const tag = newTag("client-close");
          const call = c.client.sleep({ tag, ms: 10_000 });
          call.catch(() => undefined);
          await waitFor("the sleep handler to start", async () =>
            (await observer.client.stats({ tag })).tagStarted >= 1 ? true : undefined,
          );
          await h.disconnect(c);
          // As grpc-go's "the client connection is closing": CANCELLED, which no retry policy
          // retries, with a reason that tells it from a lost connection (UNAVAILABLE).
          const expected = closedByCaller();
          for (const [what, settled] of [
            ["in-flight call of a closed connection", hangGuard(call, 5000, "the in-flight call")],
            ["a call on a closed connection", c.client.echo({ id: 1, text: "x" })],
          ] as const) {
            const err = await expectCode(settled as Promise<unknown>, Code.Canceled, what);
            assert.equal(err.reason, "closed", `${what}: reason`);
            assert.equal(err.message, expected.message, `${what}: message`);
          }
          await waitFor("the server to abort the handler", async () =>
            (await observer.client.stats({ tag })).tagAborted >= 1 ? true : undefined,
          );
        } finally {
          await h.disconnect(observer);
          await server.stop();
        }
      },
    );

    h.test(
      S,
      "close() while listen() is pending wins: listen rejects CANCELLED server-closing, the address is free",
      async () => {
        const address = await h.newAddress();
        const transport = await h.transport(address);
        const server = transport.createServer();
        server.addService(conformanceService, createConformanceHandlers(), { codec: h.codec });
        const listening = server.listen();
        listening.catch(() => undefined);
        await hangGuard(server.close(), 10_000, "close() during listen()");
        const err = await expectCode(
          hangGuard(listening, 10_000, "the pending listen()"),
          Code.Canceled,
          "listen() overtaken by close()",
        );
        assert.equal(err.reason, "server-closing");
        await expectCode(
          hangGuard(transport.connect(), 10_000, "connect"),
          Code.Unavailable,
          "connect after close() won",
        );
        const err2 = await expectCode(
          server.listen(),
          Code.FailedPrecondition,
          "listen() after close()",
        );
        assert.equal(err2.reason, "server-closing");
        // Nothing holds the address: a server in another process binds it.
        const again = await h.startServer({ address });
        await again.stop();
      },
    );

    h.test(
      S,
      "await using closes the connection and the server at scope end; the address is free",
      async () => {
        const address = await h.newAddress();
        const transport = await h.transport(address);
        let conn: ClientConnection | undefined;
        {
          await using server = transport.createServer();
          server.addService(conformanceService, createConformanceHandlers(), { codec: h.codec });
          await hangGuard(server.listen(), 10_000, "listen()");
          {
            await using c = await hangGuard(transport.connect(), 10_000, "connect");
            conn = c;
            const client = c.client(conformanceService, { codec: h.codec });
            assert.equal((await client.echo({ id: 1, text: "scoped" })).text, "scoped");
          }
          assert.equal(
            await hangGuard(conn.closed, 5000, "connection.closed after its scope"),
            undefined,
            "disposal is a clean close",
          );
        }
        await expectCode(
          hangGuard(transport.connect(), 10_000, "connect"),
          Code.Unavailable,
          "connect after the server's scope ended",
        );
        // Nothing holds the address (the socket file is gone): another process binds it.
        const again = await h.startServer({ address });
        await again.stop();
      },
    );

    h.test(S, "a client reconnects after the server restarts on the same address", async () => {
      const first = await h.startServer();
      const c1 = await h.connect(first.address);
      assert.equal((await c1.client.echo({ id: 1, text: "one" })).text, "one");
      await first.stop();
      await hangGuard(c1.conn.closed, 5000, "connection.closed after the server closed");
      await h.disconnect(c1);
      const second = await h.startServer({ address: first.address });
      try {
        const c2 = await h.connect(second.address);
        assert.equal((await c2.client.echo({ id: 2, text: "two" })).text, "two");
        await h.disconnect(c2);
      } finally {
        await second.stop();
      }
    });
  });
}

/** Suite: a peer killed with SIGKILL fails its calls; the other side carries on. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Code } from "@nearwire/core";
import { spawnChild } from "../child-process.js";
import type { ClientMainConfig } from "../client-main.js";
import type { StreamItem } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { collect, createGate, expectCode, hangGuard, waitFor } from "../wait.js";
import { countRequest, newTag } from "./shared-server.js";

const S = "peer death";

/** How long calls may take to fail after the peer died: a hang guard, not a timing claim. */
const PROMPT_MS = 5000;

/** A peer killed with SIGKILL: the other side fails or aborts its calls and carries on. */
export function peerDeathSuite(h: SuiteHarness): void {
  describe(S, () => {
    h.test(
      S,
      "SIGKILL of the server fails in-flight calls of all four kinds with UNAVAILABLE; a new server takes the address over",
      async () => {
        const server = await h.startServer();
        const c = await h.connect(server.address);
        try {
          const tag = newTag("server-death");
          const gate = createGate(30_000);
          async function* open(): AsyncGenerator<StreamItem> {
            yield { seq: 0, text: "", note: "" };
            await gate.promise;
          }
          const unary = c.client.sleep({ tag, ms: 30_000 });
          const stream = c.client.produce(countRequest(tag, 1_000_000, 64))[Symbol.asyncIterator]();
          assert.equal((await stream.next()).done, false);
          const sum = c.client.sum(open(), { metadata: { "x-tag": tag } });
          const bidi = c.client
            .bidi(open(), { metadata: { "x-tag": tag } })
            [Symbol.asyncIterator]();
          assert.equal((await bidi.next()).done, false);
          await waitFor("4 handlers to start", async () =>
            (await c.client.stats({ tag })).tagStarted >= 4 ? true : undefined,
          );
          unary.catch(() => undefined);
          sum.catch(() => undefined);
          await server.kill();
          try {
            await hangGuard(
              Promise.all([
                expectCode(unary, Code.Unavailable, "in-flight unary"),
                expectCode(
                  collect({ [Symbol.asyncIterator]: () => stream }),
                  Code.Unavailable,
                  "in-flight server stream",
                ),
                expectCode(sum, Code.Unavailable, "in-flight client stream"),
                expectCode(
                  collect({ [Symbol.asyncIterator]: () => bidi }),
                  Code.Unavailable,
                  "in-flight bidi",
                ),
              ]),
              PROMPT_MS,
              "in-flight calls after the server was killed",
            );
          } finally {
            gate.open();
          }
          await expectCode(
            hangGuard(c.client.echo({ id: 1, text: "x" }), PROMPT_MS, "a new call"),
            Code.Unavailable,
            "a call on the dead connection",
          );
          const closed = await hangGuard(c.conn.closed, PROMPT_MS, "connection.closed");
          assert.ok(
            closed instanceof Error,
            "connection.closed resolves with the error after the peer died",
          );
        } finally {
          await h.disconnect(c);
          await server.kill();
        }
        // A killed server may leave its socket file: a new server must take the address over.
        const next = await h.startServer({ address: server.address });
        const c2 = await h.connect(next.address);
        assert.equal((await c2.client.echo({ id: 2, text: "back" })).text, "back");
        await h.disconnect(c2);
        await next.stop();
      },
      { timeoutMs: 30_000 },
    );

    h.test(
      S,
      "SIGKILL of a client aborts its handlers; the server keeps serving others",
      async () => {
        const server = await h.startServer();
        const c = await h.connect(server.address);
        try {
          const tag = newTag("client-death");
          const config: ClientMainConfig = {
            factoryModule: h.options.factoryModule,
            address: server.address,
            tag,
          };
          if (h.options.codecRef !== undefined) config.codec = h.options.codecRef;
          const child = spawnChild(h.clientMain, [JSON.stringify(config)], h.tmp, [
            config.factoryModule,
            config.codec?.module,
          ]);
          await child.waitForLine("STARTED", 20_000);
          await waitFor("the client's 4 handlers to start", async () =>
            (await c.client.stats({ tag })).tagStarted >= 4 ? true : undefined,
          );
          child.signal("SIGKILL");
          await child.exited;
          const st = await waitFor(
            "every handler of the killed client to see its signal abort",
            async () => {
              const s = await c.client.stats({ tag });
              return s.tagAborted >= s.tagStarted ? s : undefined;
            },
            { timeoutMs: PROMPT_MS },
          );
          assert.equal(st.tagAborted, 4);
          const r = await c.client.echo({ id: 5, text: "alive" });
          assert.equal(r.text, "alive");
          const other = await h.connect(server.address);
          assert.equal((await other.client.echo({ id: 6, text: "new" })).text, "new");
          await h.disconnect(other);
        } finally {
          await h.disconnect(c);
          await server.stop();
        }
      },
      { timeoutMs: 40_000, requires: ["clientProcesses"] },
    );
  });
}

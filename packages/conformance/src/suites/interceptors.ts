/**
 * Suite: interceptors on both sides of the process boundary, response headers and trailers of
 * every call kind, and the diagnostics channels (the server's read back from its process).
 */
import assert from "node:assert/strict";
import diagnosticsChannel from "node:diagnostics_channel";
import { describe } from "node:test";
import {
  type CallEndEvent,
  type CallOptions,
  type CallStartEvent,
  Code,
  type Interceptor,
  type Metadata,
  NearwireError,
} from "@nearwire/core";
import { INTERCEPTOR_HEADERS, interceptedService } from "../conformance-interceptors.js";
import type { SuiteHarness } from "../suite-harness.js";
import { collect, expectCode } from "../wait.js";
import { countRequest, sharedServer } from "./shared-server.js";

const S = "interceptors";

/** A client interceptor that appends `name` to the request header `x-order`. */
function order(name: string): Interceptor {
  return (next) => async (req) => {
    const before = req.metadata["x-order"];
    req.metadata["x-order"] = before === undefined ? name : `${before},${name}`;
    return next(req);
  };
}

/** Call options that record the response headers and trailers, each delivery counted. */
function recorder(metadata?: Metadata): {
  options: CallOptions;
  headers: Metadata[];
  trailers: Metadata[];
} {
  const headers: Metadata[] = [];
  const trailers: Metadata[] = [];
  return {
    headers,
    trailers,
    options: {
      ...(metadata === undefined ? {} : { metadata }),
      onHeader: (h) => headers.push(h),
      onTrailer: (t) => trailers.push(t),
    },
  };
}

/** Interceptors, headers and trailers, diagnostics channels: client here, server in its child. */
export function interceptorsSuite(h: SuiteHarness): void {
  describe(S, () => {
    const s = sharedServer(h);
    const intercepted = () => s.c.conn.client(interceptedService, { codec: h.codec });

    h.test(
      S,
      "client interceptors run in order and change the metadata the server sees",
      async () => {
        const client = s.c.conn.client(interceptedService, {
          codec: h.codec,
          interceptors: [order("a"), order("b")],
        });
        const seen = await client.metadata({}, { metadata: { "x-order": "caller" } });
        assert.equal(seen.metadata["x-order"], "caller,a,b");
        assert.equal(seen.method, "/nearwire.conformance.Intercepted/metadata");
      },
    );

    h.test(S, "headers and trailers of every call kind reach the client once", async () => {
      const c = intercepted();
      const unary = recorder();
      assert.equal((await c.echo({ id: 1, text: "u" }, unary.options)).text, "u");
      const server = recorder();
      assert.equal((await collect(c.count(countRequest("", 3), server.options))).length, 3);
      const client = recorder();
      const items = [0, 1].map((seq) => ({ seq, text: "", note: "" }));
      assert.equal((await c.sum(items, client.options)).count, 2);
      const bidi = recorder();
      assert.equal((await collect(c.bidi(items, bidi.options))).length, 2);
      const cases = [
        ["unary", "echo", unary],
        ["server_streaming", "count", server],
        ["client_streaming", "sum", client],
        ["bidi_streaming", "bidi", bidi],
      ] as const;
      for (const [kind, method, r] of cases) {
        assert.deepEqual(r.headers, [{ "x-kind": kind }], `${method} headers`);
        assert.deepEqual(
          r.trailers,
          [{ "x-path": `/nearwire.conformance.Intercepted/${method}` }],
          `${method} trailers`,
        );
      }
    });

    h.test(
      S,
      "a failed call delivers its headers and its trailers, which the error keeps",
      async () => {
        const r = recorder();
        const failed = intercepted().fail(
          { code: Code.NotFound, message: "gone", trailers: { "x-mine": "1" } },
          r.options,
        );
        await assert.rejects(failed, (e: NearwireError) => {
          assert.equal(e.code, Code.NotFound);
          assert.equal(e.message, "gone");
          assert.equal(e.metadata?.["x-mine"], "1");
          return true;
        });
        assert.deepEqual(r.headers, [{}]);
        assert.equal(r.trailers.length, 1);
        assert.equal(r.trailers[0]?.["x-mine"], "1");
      },
    );

    h.test(S, "a server interceptor short-circuits: the handler never runs", async () => {
      const r = recorder({ [INTERCEPTOR_HEADERS.deny]: "1" });
      await expectCode(
        intercepted().echo({ id: 1, text: "x" }, r.options),
        Code.PermissionDenied,
        "echo",
      );
      // The stamp interceptor (after the denying one) never ran: no x-kind header, no x-path.
      assert.deepEqual(r.headers, [{}]);
      assert.deepEqual(r.trailers, [{}]);
      assert.equal((await intercepted().echo({ id: 2, text: "still" })).text, "still");
    });

    h.test(S, "a client interceptor short-circuits: nothing is sent", async () => {
      let reached = 0;
      const refuse: Interceptor = () => async () => {
        throw new NearwireError(Code.Unauthenticated, "no token");
      };
      const count: Interceptor = (next) => async (req) => {
        reached++;
        return next(req);
      };
      const c = s.c.conn.client(interceptedService, {
        codec: h.codec,
        interceptors: [refuse, count],
      });
      await expectCode(c.echo({ id: 1, text: "x" }), Code.Unauthenticated, "echo");
      await expectCode(collect(c.count(countRequest("", 2))), Code.Unauthenticated, "count");
      assert.equal(reached, 0);
    });

    h.test(S, "interceptors change request and response messages and streams", async () => {
      const md = { [INTERCEPTOR_HEADERS.transform]: "1" };
      const c = intercepted();
      assert.equal((await c.echo({ id: 1, text: "m" }, { metadata: md })).text, "in:m:out");
      const r = recorder(md);
      const items = await collect(c.count(countRequest("", 3), r.options));
      assert.deepEqual(
        items.map((i) => i.text.endsWith(":out")),
        [true, true, true],
      );
      assert.equal(r.trailers[0]?.["x-count"], "3");
      // A client interceptor wraps the response stream the same way.
      const upper: Interceptor = (next) => async (req) => {
        const res = await next(req);
        if (!res.stream) return res;
        const source = res.message;
        res.message = (async function* () {
          for await (const m of source) yield { ...(m as object), note: "client" };
        })();
        return res;
      };
      const wrapped = s.c.conn.client(interceptedService, {
        codec: h.codec,
        interceptors: [upper],
      });
      const notes = (await collect(wrapped.count(countRequest("", 2)))).map((i) => i.note);
      assert.deepEqual(notes, ["client", "client"]);
    });

    h.test(S, "diagnostics channels: client events here, server events in the server", async () => {
      const events: [string, string, number][] = [];
      const onStart = (m: unknown) =>
        events.push(["start", (m as CallStartEvent).request.path, -1]);
      const onEnd = (m: unknown) => {
        const e = m as CallEndEvent;
        events.push(["end", e.request.path, e.code]);
      };
      diagnosticsChannel.subscribe("nearwire:client:call:start", onStart);
      diagnosticsChannel.subscribe("nearwire:client:call:end", onEnd);
      const c = intercepted();
      const path = (m: string) => `/nearwire.conformance.Intercepted/${m}`;
      try {
        await c.echo(
          { id: 0, text: "" },
          { metadata: { [INTERCEPTOR_HEADERS.diagnostics]: "start" } },
        );
        await c.echo({ id: 1, text: "d" });
        await expectCode(
          c.fail({ code: Code.Aborted, message: "no", trailers: {} }),
          Code.Aborted,
          "fail",
        );
        assert.equal((await collect(c.count(countRequest("", 2)))).length, 2);
      } finally {
        diagnosticsChannel.unsubscribe("nearwire:client:call:start", onStart);
        diagnosticsChannel.unsubscribe("nearwire:client:call:end", onEnd);
      }
      assert.deepEqual(events, [
        ["start", path("echo"), -1],
        ["end", path("echo"), 0],
        ["start", path("echo"), -1],
        ["end", path("echo"), 0],
        ["start", path("fail"), -1],
        ["end", path("fail"), Code.Aborted],
        ["start", path("count"), -1],
        ["end", path("count"), 0],
      ]);
      const r = recorder({ [INTERCEPTOR_HEADERS.diagnostics]: "report" });
      await c.echo({ id: 2, text: "" }, r.options);
      const seen = JSON.parse(r.trailers[0]?.[INTERCEPTOR_HEADERS.diagnostics] ?? "null");
      // The call that subscribed was not traced (no one listened when it started): the first
      // event is the next call's; the report call's own end comes after its trailers.
      assert.deepEqual(seen, [
        ["start", path("echo"), -1],
        ["end", path("echo"), 0],
        ["start", path("fail"), -1],
        ["error", path("fail"), Code.Aborted],
        ["end", path("fail"), Code.Aborted],
        ["start", path("count"), -1],
        ["end", path("count"), 0],
        ["start", path("echo"), -1],
      ]);
    });
  });
}

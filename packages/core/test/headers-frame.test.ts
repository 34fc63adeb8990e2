/** The HEADERS frame (0x17) and the REQUEST flag TAKES_HEADERS (PROTOCOL.md §5.2, §5.10). */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  Code,
  connectRpc,
  defineService,
  jsonCodec,
  type Metadata,
  messageType,
  type NearwireError,
  unary,
} from "../src/index.js";
import { FrameType } from "../src/protocol.js";
import {
  decodeHeaders,
  decodeRequest,
  decodeStatus,
  encodeHeaders,
  encodeRequest,
  encodeStatus,
  FLAG_END_STREAM,
  FLAG_HAS_MESSAGE,
  FLAG_TAKES_HEADERS,
} from "../src/rpc/envelope.js";
import { RpcServer } from "../src/rpc/rpc-server.js";
import { channelPair, pairProvider } from "./support/channel-pair.js";

interface Num {
  n: number;
}
const NumT = messageType<Num>("test.Num");
const Svc = defineService("test.Svc", { echo: unary(NumT, NumT) });
const json = jsonCodec.forType(NumT);
const tick = () => new Promise((r) => setTimeout(r, 5));

/** A real client on one end of a pair; the test plays the server with raw frames. */
function rawServer() {
  const [serverEnd, clientEnd] = channelPair();
  const frames: [number, Uint8Array][] = [];
  serverEnd.start({ onFrame: (t, p) => frames.push([t, p]), onClose: () => {} });
  const client = connectRpc(clientEnd).client(Svc, { codec: jsonCodec });
  return {
    client,
    frames,
    send: (t: number, p: Uint8Array) => serverEnd.send(t, p),
    ok: (id: number, trailers?: Metadata) =>
      serverEnd.send(
        FrameType.Status,
        encodeStatus(id, Code.OK, "", trailers, json.encode({ n: 1 })),
      ),
  };
}

describe("HEADERS, the client's side", () => {
  it("a call with onHeader sets TAKES_HEADERS; one without does not", async () => {
    const s = rawServer();
    void s.client.echo({ n: 1 }).catch(() => {});
    void s.client.echo({ n: 2 }, { onHeader: () => {} }).catch(() => {});
    await tick();
    const flags = s.frames.map(([, p]) => decodeRequest(p).flags & FLAG_TAKES_HEADERS);
    assert.deepEqual(flags, [0, FLAG_TAKES_HEADERS]);
  });

  it("delivers a HEADERS frame's headers, then the response and the trailers, once each", async () => {
    const s = rawServer();
    const headers: Metadata[] = [];
    const trailers: Metadata[] = [];
    const call = s.client.echo(
      { n: 1 },
      { onHeader: (h) => headers.push(h), onTrailer: (t) => trailers.push(t) },
    );
    await tick();
    s.send(FrameType.Headers, encodeHeaders(1, { "x-a": "1" }));
    s.ok(1, { "x-t": "2", "nearwire-reason": "" });
    assert.deepEqual(await call, { n: 1 });
    assert.deepEqual(headers, [{ "x-a": "1" }]);
    assert.deepEqual(trailers, [{ "x-t": "2" }]);
  });

  it("without a HEADERS frame, onHeader gets {} before the response", async () => {
    const s = rawServer();
    const order: string[] = [];
    const call = s.client.echo(
      { n: 1 },
      { onHeader: (h) => order.push(`h${JSON.stringify(h)}`), onTrailer: () => order.push("t") },
    );
    await tick();
    s.ok(1);
    await call;
    assert.deepEqual(order, ["h{}", "t"]);
  });

  for (const [what, setup] of [
    ["on a call whose REQUEST did not set TAKES_HEADERS", (_s: ReturnType<typeof rawServer>) => {}],
    [
      "a second time",
      (s: ReturnType<typeof rawServer>) => s.send(FrameType.Headers, encodeHeaders(1, {})),
    ],
  ] as const) {
    it(`HEADERS ${what} is a protocol violation`, async () => {
      const s = rawServer();
      const takes = what === "a second time";
      const call = s.client.echo({ n: 1 }, takes ? { onHeader: () => {} } : {});
      await tick();
      setup(s);
      s.send(FrameType.Headers, encodeHeaders(1, { "x-a": "1" }));
      await assert.rejects(call, (e: NearwireError) => {
        assert.equal(e.code, Code.Internal);
        assert.equal(e.reason, "protocol-violation");
        assert.match(e.message, /HEADERS on call 1/);
        return true;
      });
    });
  }

  it("a malformed HEADERS (a metadata block short of the payload) is a violation", async () => {
    const s = rawServer();
    const call = s.client.echo({ n: 1 }, { onHeader: () => {} });
    await tick();
    const p = encodeHeaders(1, { k: "v" });
    s.send(FrameType.Headers, p.subarray(0, p.byteLength - 1));
    await assert.rejects(call, { code: Code.Internal, reason: "protocol-violation" });
  });
});

describe("HEADERS, the server's side", () => {
  async function rawClient() {
    const [serverEnd, clientEnd] = channelPair();
    const { provider, accept } = pairProvider(serverEnd, clientEnd);
    const server = new RpcServer(provider).addService(
      Svc,
      {
        echo: (r, ctx) => {
          if (r.n > 0) ctx.responseHeaders["x-n"] = String(r.n);
          return r;
        },
      },
      { codec: jsonCodec },
    );
    await server.listen();
    accept();
    const frames: [number, Uint8Array][] = [];
    clientEnd.start({ onFrame: (t, p) => frames.push([t, p]), onClose: () => {} });
    const request = (id: number, n: number, takesHeaders: boolean) =>
      clientEnd.send(
        FrameType.Request,
        encodeRequest(
          id,
          FLAG_END_STREAM | FLAG_HAS_MESSAGE | (takesHeaders ? FLAG_TAKES_HEADERS : 0),
          0,
          new TextEncoder().encode("/test.Svc/echo"),
          undefined,
          json.encode({ n }),
        ),
      );
    return { frames, request, close: () => server.close({ graceMs: 0 }) };
  }

  it("sends HEADERS before the STATUS only when asked and when the handler set some", async () => {
    const c = await rawClient();
    try {
      c.request(1, 5, true); // asked, headers set: HEADERS then STATUS
      c.request(2, 5, false); // not asked: STATUS only, the headers dropped
      c.request(3, 0, true); // asked, none set: STATUS only
      await tick();
      const shape = c.frames.map(([t, p]) =>
        t === FrameType.Headers
          ? `H${decodeHeaders(p).callId}:${JSON.stringify(decodeHeaders(p).headers)}`
          : `S${decodeStatus(p).callId}`,
      );
      assert.deepEqual(shape, ['H1:{"x-n":"5"}', "S1", "S2", "S3"]);
    } finally {
      await c.close();
    }
  });
});

// nearwire (Node) server for the Python interop check. Uses only the public API.
// usage: node node-server.mjs MAIN_PATH LIMITS_PATH MAXCONN_PATH [lifetimeMs]
//   MAIN    default options
//   LIMITS  maxConcurrentCalls 4, maxMessageBytes 1024, frameTimeoutMs 300, handshakeTimeoutMs 300
//   MAXCONN maxConnections 1
// Prints "ready" once all listen; SIGTERM: graceful close (graceMs 500) of all, then exit.
// Exits by itself after lifetimeMs (default 55000).
import {
  bidiStreaming,
  clientStreaming,
  defineService,
  jsonCodec,
  messageType,
  NearwireError,
  serverStreaming,
  unary,
} from "../../packages/core/dist/index.js";
import { createUdsTransport } from "../../packages/uds/dist/index.js";

const [mainPath, limitsPath, maxconnPath, lifetime = "55000"] = process.argv.slice(2);
const T = (n) => messageType(n);

export const Greeter = defineService("nearwire.example.Greeter", {
  Say: unary(T("HelloRequest"), T("HelloReply")),
  Hold: clientStreaming(T("HelloRequest"), T("HelloReply")),
});
export const Test = defineService("nearwire.interop.Test", {
  Echo: unary(T("Any"), T("Any")),
  Count: serverStreaming(T("Any"), T("Any")),
  Sum: clientStreaming(T("Any"), T("Any")),
  Chat: bidiStreaming(T("Any"), T("Any")),
  Fail: unary(T("Any"), T("Any")),
  Crash: unary(T("Any"), T("Any")),
  Sleep: unary(T("Any"), T("Any")),
  Events: unary(T("Any"), T("Any")),
});

const events = [];
const aborted = (signal) =>
  new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
const why = (signal) => {
  const r = signal.reason;
  return r && typeof r === "object"
    ? { code: r.code, reason: r.reason, message: String(r.message) }
    : String(r);
};

const greeter = {
  Say: ({ name }) => ({ text: `hello, ${name}` }),
  Hold: async (_requests, ctx) => {
    await aborted(ctx.signal);
    events.push({ event: "abort", method: ctx.method, why: why(ctx.signal) });
    throw new NearwireError(1, "held call ended");
  },
};
const test = {
  Echo: (req, ctx) => {
    Object.assign(ctx.trailers, req?.trailers ?? {});
    return {
      value: req?.value ?? null,
      metadata: ctx.metadata,
      hasDeadline: ctx.deadline !== undefined,
      method: ctx.method,
    };
  },
  Count: async function* ({ n, size = 0, fixed = false }) {
    for (let i = 0; i < n; i++) yield { i, pad: "x".repeat(size - (fixed ? String(i).length : 0)) };
  },
  Sum: async (requests) => {
    let sum = 0;
    let count = 0;
    for await (const r of requests) {
      sum += r.v;
      count++;
    }
    return { sum, count };
  },
  Chat: async function* (requests) {
    let i = 0;
    for await (const r of requests) yield { v: r.v, i: i++ };
  },
  Fail: ({ code, detail, trailers, reason }) => {
    throw new NearwireError(code, detail, { metadata: trailers, reason });
  },
  Crash: () => {
    throw new Error("boom");
  },
  Sleep: async ({ ms }, ctx) => {
    const timer = new Promise((resolve) => setTimeout(resolve, ms).unref());
    await Promise.race([timer, aborted(ctx.signal)]);
    if (ctx.signal.aborted) {
      events.push({ event: "abort", method: ctx.method, why: why(ctx.signal) });
      throw new NearwireError(1, "sleep aborted");
    }
    return { slept: ms };
  },
  Events: () => ({ events: events.splice(0) }),
};

const servers = [];
async function serve(address, options) {
  const transport = createUdsTransport({ address, ...options });
  const server = transport.createServer();
  server.addService(Greeter, greeter, { codec: jsonCodec });
  server.addService(Test, test, { codec: jsonCodec });
  await server.listen();
  servers.push(server);
}

await serve(mainPath, {});
if (limitsPath)
  await serve(limitsPath, {
    maxConcurrentCalls: 4,
    maxMessageBytes: 1024,
    frameTimeoutMs: 300,
    handshakeTimeoutMs: 300,
  });
if (maxconnPath) await serve(maxconnPath, { maxConnections: 1 });
console.log("ready");

let closing = false;
async function closeAll(why) {
  if (closing) return;
  closing = true;
  await Promise.all(servers.map((s) => s.close({ graceMs: 500 })));
  console.log(`closed (${why})`);
  process.exit(0);
}
process.once("SIGTERM", () => void closeAll("SIGTERM"));
process.once("SIGINT", () => void closeAll("SIGINT"));
setTimeout(() => void closeAll("lifetime"), Number(lifetime)).unref();
// keep alive until closed (servers keep the loop alive while listening)

// nearwire (Node) client against the Python server (or, as a control, node-server.mjs).
// usage: node node-client.mjs LABEL MAIN_PATH [python|node] [BAD_PREFIX]
// Prints ok/FAIL/info lines and a closing "N passed, N failed"; exit 1 on a failure.
import {
  bidiStreaming,
  clientStreaming,
  createCodec,
  defineService,
  jsonCodec,
  messageType,
  serverStreaming,
  unary,
} from "../../packages/core/dist/index.js";
import { createUdsTransport } from "../../packages/uds/dist/index.js";

const [label, mainPath, impl = "python", badPrefix] = process.argv.slice(2);
const T = (n) => messageType(n);
const Greeter = defineService("nearwire.example.Greeter", {
  Say: unary(T("HelloRequest"), T("HelloReply")),
  Hold: clientStreaming(T("HelloRequest"), T("HelloReply")),
  Nope: unary(T("HelloRequest"), T("HelloReply")),
});
const Test = defineService("nearwire.interop.Test", {
  Echo: unary(T("Any"), T("Any")),
  Count: serverStreaming(T("Any"), T("Any")),
  Sum: clientStreaming(T("Any"), T("Any")),
  Chat: bidiStreaming(T("Any"), T("Any")),
  Fail: unary(T("Any"), T("Any")),
  Crash: unary(T("Any"), T("Any")),
  Sleep: unary(T("Any"), T("Any")),
  Events: unary(T("Any"), T("Any")),
});
const Quirks = defineService("nearwire.interop.Quirks", {
  UnaryAsMessage: unary(T("Any"), T("Any")),
  ErrorWithMessage: unary(T("Any"), T("Any")),
  DupTrailers: unary(T("Any"), T("Any")),
  UnknownReason: unary(T("Any"), T("Any")),
  LateFrames: unary(T("Any"), T("Any")),
  StatusUnusedId: unary(T("Any"), T("Any")),
  RequestAtClient: unary(T("Any"), T("Any")),
  BigCredit: clientStreaming(T("Any"), T("Any")),
  Flood: serverStreaming(T("Any"), T("Any")),
  TrailingStatus: unary(T("Any"), T("Any")),
});
const rawCodec = createCodec("raw", {
  Any: { decodesInPlace: false, encode: (v) => v, decode: (b) => b },
});

let passed = 0;
let failed = 0;
const check = (name, ok, detail = "") => {
  if (ok) {
    passed++;
    console.log(`  ok    ${name}`);
  } else {
    failed++;
    console.log(`  FAIL  ${name}: ${detail}`);
  }
};
const info = (s) => console.log(`  info  ${s}`);
const err = async (p) => {
  try {
    const v = await p;
    return { value: v };
  } catch (e) {
    return { code: e.code, reason: e.reason, message: String(e.message), metadata: e.metadata };
  }
};
const show = (e) => JSON.stringify(e);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const collectAll = async (it) => {
  const out = [];
  for await (const m of it) out.push(m);
  return out;
};

const transport = createUdsTransport({ address: mainPath });
const conn = await transport.connect();
const greeter = conn.client(Greeter, { codec: jsonCodec });
const test = conn.client(Test, { codec: jsonCodec });

async function section(name, fn) {
  console.log(`[${label}] ${name}`);
  try {
    await fn();
  } catch (e) {
    check(`${name}: ran to the end`, false, String(e?.stack ?? e));
  }
}

await section("calls", async () => {
  check("unary Say", (await greeter.Say({ name: "Ada" })).text === "hello, Ada");
  const r = await test.Echo({ value: 1 }, { metadata: { "X-Trace": "abc" }, timeoutMs: 5000 });
  check(
    "unary Echo: metadata lower-cased, deadline seen",
    JSON.stringify(r.metadata) === '{"x-trace":"abc"}' && r.hasDeadline === true,
    show(r),
  );
  const c300 = await collectAll(test.Count({ n: 300 }));
  check(
    "server-streaming Count 300 (client grants credit)",
    c300.length === 300 && c300.every((m, i) => m.i === i),
    String(c300.length),
  );
  if (impl === "python") {
    await test.Events({});
    const fixed = await collectAll(test.Count({ n: 600, size: 1001, fixed: true }));
    const grants = (await test.Events({})).events
      .filter(
        (e) => e.event === "credit-received" && e.detail[1] === "/nearwire.interop.Test/Count",
      )
      .map((e) => e.detail[2]);
    // §5.4's reference window, for 600 messages of 1016 B each
    const want = [];
    let window = 32;
    let consumed = 0;
    for (let k = 1; k <= 600; k++) {
      consumed++;
      if (consumed < Math.floor(window / 2)) continue;
      const target = Math.max(32, Math.min(4096, Math.floor(2 ** 20 / 1016)));
      const growth = Math.max(0, target - window);
      window += growth;
      want.push(consumed + growth);
      consumed = 0;
    }
    info(
      `nearwire client's CREDIT grants for 600 x 1016 B messages: ${JSON.stringify(grants)} (reference ${JSON.stringify(want)})`,
    );
    check(
      "the nearwire client's grants follow §5.4's reference window",
      fixed.length === 600 && JSON.stringify(grants) === JSON.stringify(want),
      `${fixed.length} ${JSON.stringify(grants)}`,
    );
  }
  const big = await collectAll(test.Count({ n: 40, size: 40000 }));
  check("server-streaming Count 40 x 40 KB", big.length === 40 && big.every((m, i) => m.i === i));
  const sum = await test.Sum(Array.from({ length: 300 }, (_, i) => ({ v: i })));
  check(
    "client-streaming Sum 300 (server grants credit)",
    sum.sum === 44850 && sum.count === 300,
    show(sum),
  );
  const zero = await test.Sum([]);
  check("client-streaming with zero messages", zero.sum === 0 && zero.count === 0, show(zero));
  async function* gen(n) {
    for (let i = 0; i < n; i++) yield { v: i };
  }
  const chat = await collectAll(test.Chat(gen(300)));
  check(
    "bidi Chat 300",
    chat.length === 300 && chat.every((m, i) => m.v === i && m.i === i),
    String(chat.length),
  );
  // lock-step bidi: the next request is produced only after the previous answer arrived
  let release;
  let answered = 0;
  async function* lockstep() {
    for (let i = 0; i < 20; i++) {
      yield { v: i };
      await new Promise((r) => {
        release = r;
      });
    }
  }
  const ls = [];
  for await (const m of test.Chat(lockstep())) {
    ls.push(m.v);
    answered++;
    release();
  }
  check("bidi Chat 20 in lock-step", ls.length === 20 && answered === 20, show(ls));
  const many = await Promise.all(
    Array.from({ length: 50 }, (_, i) => greeter.Say({ name: String(i) })),
  );
  check(
    "50 unary calls in flight",
    many.every((m, i) => m.text === `hello, ${i}`),
  );
  const capped = await err(test.Echo({}, { timeoutMs: 2 ** 32 + 5 }));
  check(
    "timeoutMs above 2^32-1 is capped, the call is served",
    capped.value?.hasDeadline === true,
    show(capped),
  );
});

await section("errors", async () => {
  const f = await err(
    test.Fail({ code: 5, detail: "no user Ada", trailers: { "retry-after-ms": "100" } }),
  );
  check(
    "Fail 5 with trailers: code, message, metadata",
    f.code === 5 && f.message.includes("no user Ada") && f.metadata?.["retry-after-ms"] === "100",
    show(f),
  );
  const r = await err(test.Fail({ code: 8, detail: "too big", reason: "message-too-large" }));
  check(
    "Fail 8 with reason message-too-large: err.reason from the nearwire-reason trailer",
    r.code === 8 && r.reason === "message-too-large" && !("nearwire-reason" in (r.metadata ?? {})),
    show(r),
  );
  const crash = await err(test.Crash({}));
  check("handler throws a plain Error: UNKNOWN", crash.code === 2, show(crash));
  const nope = await err(greeter.Nope({ name: "x" }));
  check("unknown method: UNIMPLEMENTED", nope.code === 12, show(nope));
  check(
    "connection serves after UNIMPLEMENTED",
    (await greeter.Say({ name: "B" })).text === "hello, B",
  );
  const rawTest = conn.client(Test, { codec: rawCodec });
  const cm = await err(rawTest.Echo(new Uint8Array([0xff, 0x00])));
  check(
    "undecodable request from a 'raw' codec: INVALID_ARGUMENT codec-mismatch",
    cm.code === 3 && cm.reason === "codec-mismatch",
    show(cm),
  );
  const z = await err(test.Echo({ value: "zero" }, { timeoutMs: 0 }));
  check("timeoutMs 0: DEADLINE_EXCEEDED at once", z.code === 4, show(z));
});

await section("deadline-cancel", async () => {
  await test.Events({});
  const t0 = Date.now();
  const d = await err(test.Sleep({ ms: 3000 }, { timeoutMs: 200 }));
  const dt = Date.now() - t0;
  check(
    "deadline 200 ms: DEADLINE_EXCEEDED",
    d.code === 4 && dt >= 190 && dt < 1000,
    `${show(d)} after ${dt} ms`,
  );
  const ac = new AbortController();
  async function* holdReqs() {
    yield { name: "a" };
    yield { name: "b" };
    await new Promise(() => {});
  }
  setTimeout(() => ac.abort(), 150);
  const h = await err(greeter.Hold(holdReqs(), { signal: ac.signal }));
  check("AbortSignal: CANCELLED", h.code === 1, show(h));
  await sleep(150);
  const ev = (await test.Events({})).events;
  info(`server events: ${JSON.stringify(ev)}`);
  if (impl === "python") {
    const cancels = ev.filter((e) => e.event === "cancel").map((e) => [e.detail[1], e.detail[2]]);
    const sleepEnded = ev.some(
      (e) => e.event === "deadline" && e.detail[1] === "/nearwire.interop.Test/Sleep",
    );
    // both sides run a 200 ms timer: the server's STATUS 4 may win, then the client's CANCEL(4)
    // arrives for an ended call (ignored) or is not sent at all
    check(
      "the Python server got CANCEL(4) for Sleep (or its own deadline fired first) and CANCEL(1) for Hold",
      JSON.stringify(cancels) ===
        JSON.stringify([
          ["/nearwire.interop.Test/Sleep", 4],
          ["/nearwire.example.Greeter/Hold", 1],
        ]) ||
        (sleepEnded &&
          JSON.stringify(cancels) === JSON.stringify([["/nearwire.example.Greeter/Hold", 1]])),
      JSON.stringify(ev),
    );
    const reqs = ev.filter((e) => e.event === "request").map((e) => e.detail[1]);
    check(
      "timeoutMs 0 sent nothing; a sent deadline is the timeoutMs field",
      !reqs.includes("/nearwire.interop.Test/Echo"),
      JSON.stringify(reqs),
    );
  } else {
    check(
      "the server aborted both handlers",
      ev.filter((e) => e.event === "abort").length === 2,
      JSON.stringify(ev),
    );
  }
});

if (impl === "python") {
  await section("quirks (legal and illegal server answers)", async () => {
    const q = conn.client(Quirks, { codec: jsonCodec });
    const a = await err(q.UnaryAsMessage({}));
    check(
      "unary answered MESSAGE + STATUS without message: accepted (§5.2)",
      a.value?.text === "from MESSAGE",
      show(a),
    );
    const b = await err(q.ErrorWithMessage({}));
    check(
      "STATUS code 5 carrying a message: the message is ignored, NOT_FOUND",
      b.code === 5,
      show(b),
    );
    const c = await err(q.DupTrailers({}));
    check(
      "trailers with a duplicate key: the last value wins (§5.3)",
      c.code === 5 && c.metadata?.k === "last",
      show(c),
    );
    const d = await err(q.UnknownReason({}));
    check(
      "nearwire-reason the client does not know: kept as text (§5.6)",
      d.code === 10 && d.reason === "brand-new-reason",
      show(d),
    );
    const e = await err(q.LateFrames({}));
    check("MESSAGE, STATUS, CREDIT for an ended call: ignored", e.value?.text === "done", show(e));
    await sleep(100);
    check(
      "... and the connection still serves",
      (await greeter.Say({ name: "C" })).text === "hello, C",
    );
    const c5 = await transport.connect();
    const f = await err(
      c5
        .client(Quirks, { codec: jsonCodec })
        .BigCredit(Array.from({ length: 100 }, () => ({ v: 1 }))),
    );
    await c5.close();
    check("a CREDIT grant of 2^32-1 is accepted", f.value?.sum === 100, show(f));
    // the server sends n MESSAGEs ignoring credit while the client has consumed one
    const flood = async (n) => {
      const c3 = await transport.connect();
      const it = c3.client(Quirks, { codec: jsonCodec }).Flood({ n })[Symbol.asyncIterator]();
      const got = [];
      let error;
      try {
        const first = await it.next();
        if (!first.done) got.push(first.value);
        await sleep(300);
        for (;;) {
          const r = await it.next();
          if (r.done) break;
          got.push(r.value);
        }
      } catch (e) {
        error = { code: e.code, reason: e.reason };
      }
      await c3.close();
      return { count: got.length, error };
    };
    const f64 = await flood(64);
    check(
      "server sends 64 MESSAGEs on 32 credits (32 past): accepted",
      f64.count === 64 && !f64.error,
      show(f64),
    );
    const f65 = await flood(65);
    check(
      "server sends 65 MESSAGEs on 32 credits (33 past): the client fails INTERNAL (§5.4, §5.10)",
      f65.error?.code === 13,
      show(f65),
    );
    const c4 = await transport.connect();
    const ts = await err(c4.client(Quirks, { codec: jsonCodec }).TrailingStatus({}));
    await c4.close();
    info(`STATUS without HAS_MESSAGE but 3 bytes after its fields: the client gives ${show(ts)}`);
    for (const [method, what] of [
      ["StatusUnusedId", "STATUS for an id the client never used"],
      ["RequestAtClient", "REQUEST received by a client"],
    ]) {
      const conn2 = await transport.connect();
      const q2 = conn2.client(Quirks, { codec: jsonCodec });
      const other = conn2.client(Test, { codec: jsonCodec }).Sleep({ ms: 1500 });
      const r = await err(q2[method]({}));
      const o = await err(other);
      const closed = await conn2.closed;
      info(`${what}: the client's error reason is ${r.reason}`);
      check(
        `${what}: the client's calls fail INTERNAL protocol-violation (§5.7)`,
        r.code === 13 &&
          o.code === 13 &&
          ["protocol-violation", "unknown-frame-type"].includes(r.reason),
        `${show(r)} other ${show(o)} closed ${closed?.code}`,
      );
      await conn2.close();
    }
    await sleep(100);
    const ev = (await test.Events({})).events.filter((x) => x.event === "goaway-received");
    check(
      "... and the client sent GOAWAY 13 each time (65-flood, trailing STATUS?, STATUS unused id, REQUEST)",
      ev.length >= 3 && ev.every((x) => x.detail[0] === 13),
      JSON.stringify(ev),
    );
    info(`GOAWAY texts the nearwire client sent: ${JSON.stringify(ev.map((x) => x.detail[1]))}`);
  });

  if (badPrefix) {
    await section("client preface against misbehaving servers", async () => {
      const expectConnect = {
        version2: [9, "version-mismatch", 9],
        smallmax: [3, "bad-preface", 3],
        http2: [9, "transport-mismatch", null],
        shm: [9, "transport-mismatch", null],
        "goaway-empty": [2, undefined, null],
        "goaway-200": [2, undefined, null],
        "goaway-8": [8, undefined, null],
        garbage: [3, "bad-preface", 3],
        "hello-badcrc": [3, "bad-preface", 3],
        silent: [14, undefined, null],
      };
      const results = {};
      for (const mode of [...Object.keys(expectConnect), "goaway-ok"]) {
        const t = createUdsTransport({
          address: `${badPrefix}-${mode}.sock`,
          handshakeTimeoutMs: 300,
        });
        const r = await err(t.connect().then((c) => c.close().then(() => "connected")));
        results[mode] = r;
        if (mode in expectConnect) {
          const [code, reason] = expectConnect[mode];
          check(
            `server answers ${mode}: connect fails ${code}${reason ? ` ${reason}` : ""}`,
            r.code === code && (reason === undefined || r.reason === reason),
            show(r),
          );
        } else {
          info(`server answers GOAWAY(0) to the HELLO: connect gives ${show(r)}`);
        }
      }
      info(
        `GOAWAY 8 'too-many-connections' at connect: reason ${show(results["goaway-8"].reason)}`,
      );
      const t = createUdsTransport({ address: `${badPrefix}-hello-extra.sock` });
      const c = await t.connect();
      const s = await err(c.client(Greeter, { codec: jsonCodec }).Say({ name: "X" }));
      check(
        "server HELLO of 22 bytes with flags 0xffff: accepted",
        s.value?.text === "hello, X",
        show(s),
      );
      await c.close();
      const t2 = createUdsTransport({ address: `${badPrefix}-late-status-then-eof.sock` });
      const c2 = await t2.connect();
      const g2 = c2.client(Greeter, { codec: jsonCodec });
      const s1 = await err(g2.Say({ name: "Y" }));
      const closed = await c2.closed;
      const s2 = await err(g2.Say({ name: "Z" }));
      check(
        "server closes (EOF) after answering: the connection ends UNAVAILABLE peer-closed",
        s1.value?.text === "hello, Y" && closed?.code === 14 && s2.code === 14,
        `${show(s1)} closed ${closed?.code} ${closed?.reason} then ${show(s2)}`,
      );
      await c2.close();
      await sleep(200);
      const ev = (await test.Events({})).events.filter((x) => x.event === "bad");
      const seen = Object.fromEntries(ev.map((x) => [x.detail[0], x.detail[1]]));
      for (const [mode, [, , ga]] of Object.entries(expectConnect)) {
        const got = seen[mode] ?? [];
        const goaways = got.filter((x) => x[0] === "goaway");
        if (ga === null)
          check(
            `server answers ${mode}: the client sends no GOAWAY`,
            goaways.length === 0,
            JSON.stringify(got),
          );
        else
          check(
            `server answers ${mode}: the client sends GOAWAY ${ga}`,
            goaways.length === 1 && goaways[0][1] === ga,
            JSON.stringify(got),
          );
      }
      info(`what the client sent to each misbehaving server: ${JSON.stringify(seen)}`);
    });
  }
}

await conn.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);

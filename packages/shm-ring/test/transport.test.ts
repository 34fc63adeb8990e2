import assert from "node:assert/strict";
import { it } from "node:test";
import {
  Code,
  defineService,
  jsonCodec,
  messageType,
  type NearwireError,
  unary,
} from "@nearwire/core";
import { createShmRingTransport } from "../src/index.js";
import { leakCheckedTempDir } from "./support/leak-checks.js";

const tmp = leakCheckedTempDir("nw-shm-rpc-");

const Echo = defineService("test.Echo", {
  say: unary(messageType<{ text: string }>("Req"), messageType<{ text: string }>("Res")),
});

it("serves unary RPC over the rings (README example)", async () => {
  const transport = createShmRingTransport({ address: tmp.sock("rpc"), wait: "adaptive" });
  const server = transport.createServer().addService(
    Echo,
    {
      say: ({ text }) => {
        if (text === "fail") throw new (class extends Error {})("boom");
        return { text: text.toUpperCase() };
      },
    },
    { codec: jsonCodec },
  );
  await server.listen();
  const conn = await transport.connect();
  const client = conn.client(Echo, { codec: jsonCodec });
  assert.deepEqual(await client.say({ text: "hi" }), { text: "HI" });
  for (let i = 0; i < 200; i++) assert.equal((await client.say({ text: `m${i}` })).text, `M${i}`);
  await assert.rejects(client.say({ text: "fail" }), (e: NearwireError) => e.code !== Code.OK);
  assert.equal((await client.say({ text: "after" })).text, "AFTER");
  await conn.close();
  await server.close({ graceMs: 100 });
});

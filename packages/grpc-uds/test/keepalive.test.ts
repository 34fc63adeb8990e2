import assert from "node:assert/strict";
import net from "node:net";
import { after, describe, it } from "node:test";
import { Code, defineService, jsonCodec, messageType, NearwireError, unary } from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import { tempDir } from "./support/servers.js";

const Echo = messageType<{ text: string }>("demo.Echo");
const service = defineService("demo.Greeter", { say: unary(Echo, Echo) });

describe("grpc-uds keepalive PINGs", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("a server that stops answering PINGs: the connection closes UNAVAILABLE after keepaliveTimeoutMs", async () => {
    const path = `${tmp.dir}/mute.sock`;
    // An HTTP/2 server that sends its SETTINGS and ACKs the client's, then reads and says nothing.
    const settings = Buffer.from("000000040000000000", "hex");
    const ack = Buffer.from("000000040100000000", "hex");
    const mute = net.createServer((s) => {
      s.on("error", () => {});
      s.write(Buffer.concat([settings, ack]));
      s.resume();
    });
    await new Promise<void>((resolve) => mute.listen(path, resolve));
    try {
      const started = Date.now();
      const connection = await createGrpcTransport({
        address: path,
        keepaliveMs: 100,
        keepaliveTimeoutMs: 200,
      }).connect();
      const closed = await connection.closed;
      assert.ok(closed instanceof NearwireError, String(closed));
      assert.equal(closed.code, Code.Unavailable);
      const ms = Date.now() - started;
      assert.ok(ms >= 250 && ms < 5000, `closed after ${ms} ms`);
      await connection.close();
    } finally {
      mute.close();
    }
  });

  it("a live server answers the PINGs: an idle connection with keepalive stays usable", async () => {
    const transport = createGrpcTransport({
      address: `${tmp.dir}/live.sock`,
      keepaliveMs: 50,
      keepaliveTimeoutMs: 100,
    });
    const server = transport
      .createServer()
      .addService(service, { say: (r) => r }, { codec: jsonCodec });
    await server.listen();
    const connection = await transport.connect();
    try {
      let lost = false;
      void connection.closed.then(() => {
        lost = true;
      });
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(lost, false, "connection closed while idle");
      const reply = await connection
        .client(service, { codec: jsonCodec })
        .say({ text: "still here" });
      assert.deepEqual(reply, { text: "still here" });
    } finally {
      await connection.close();
      await server.close({ graceMs: 100 });
    }
  });
});

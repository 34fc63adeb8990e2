import assert from "node:assert/strict";
import { after, it } from "node:test";
import { Code, createHealthService, ServingStatus } from "@nearwire/core";
import { createUdsTransport } from "../src/index.js";
import { tempDir } from "./support/channels.js";

const tmp = tempDir();
after(() => tmp.cleanup());

it("health over uds: Check, NOT_FOUND, Watch sees each change and NOT_SERVING on close", async () => {
  const transport = createUdsTransport({ address: tmp.path("health.sock") });
  const health = createHealthService();
  const server = transport.createServer();
  server.addService(health.definition, health.impl, { codec: health.codec });
  await server.listen();
  const connection = await transport.connect();
  const client = connection.client(health.definition, { codec: health.codec });
  assert.deepEqual(await client.Check({ service: "" }), { status: ServingStatus.SERVING });
  await assert.rejects(client.Check({ service: "x.Y" }), { code: Code.NotFound });
  const seen: number[] = [];
  let closing: Promise<void> | undefined;
  for await (const r of client.Watch({ service: "x.Y" })) {
    seen.push(r.status);
    if (seen.length === 1) health.setStatus("x.Y", ServingStatus.SERVING);
    else closing ??= server.close({ graceMs: 10_000 });
  }
  assert.deepEqual(seen, [
    ServingStatus.SERVICE_UNKNOWN,
    ServingStatus.SERVING,
    ServingStatus.NOT_SERVING,
  ]);
  await closing;
  await connection.close();
});

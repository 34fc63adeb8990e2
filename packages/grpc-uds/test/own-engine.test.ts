import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempDir } from "./support/servers.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const INDEX = new URL("../src/index.ts", import.meta.url).href;
const CORE = new URL("../../core/src/index.ts", import.meta.url).href;

test("grpc-uds serves and calls (reflection on) without loading @grpc/* or protobufjs", async () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());
  // A fresh process, so that no other test has loaded them. grpc-js and @grpc/reflection are
  // CommonJS (they would show in require.cache); protobufjs too.
  const script = `
    import { createRequire } from "node:module";
    const cache = createRequire(import.meta.url).cache;
    const { createGrpcTransport } = await import(${JSON.stringify(INDEX)});
    const { defineService, jsonCodec, messageType, unary } = await import(${JSON.stringify(CORE)});
    const Echo = messageType("demo.Echo");
    const service = defineService("demo.Greeter", { say: unary(Echo, Echo) });
    const transport = createGrpcTransport({ address: ${JSON.stringify(`${tmp.dir}/own.sock`)}, reflection: true });
    const server = transport.createServer().addService(service, { say: (r) => r }, { codec: jsonCodec });
    await server.listen();
    const connection = await transport.connect();
    const reply = await connection.client(service, { codec: jsonCodec }).say({ text: "hi" });
    await connection.close();
    await server.close({ graceMs: 100 });
    const foreign = Object.keys(cache).filter((k) => k.includes("@grpc/") || k.includes("protobufjs"));
    console.log(JSON.stringify({ reply, foreign }));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd: PACKAGE_DIR, timeout: 30_000 },
  );
  assert.deepEqual(JSON.parse(stdout), { reply: { text: "hi" }, foreign: [] });
});

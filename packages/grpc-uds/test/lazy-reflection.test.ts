import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { tempDir } from "./helpers.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const INDEX = new URL("../src/index.ts", import.meta.url).href;

test("@grpc/reflection is loaded only when a server with reflection: true listens", async () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());
  // A fresh process, so that no other test has loaded the package or @grpc/reflection yet.
  const script = `
    import { createRequire } from "node:module";
    const cache = createRequire(import.meta.url).cache;
    const loaded = () => Object.keys(cache).some((k) => k.includes("@grpc/reflection"));
    const { createGrpcTransport } = await import(${JSON.stringify(INDEX)});
    const seen = { imported: loaded() };
    const plain = createGrpcTransport({ address: "unix:${tmp.dir}/plain.sock" }).createServer();
    await plain.listen();
    seen.plainListening = loaded();
    const reflecting = createGrpcTransport({
      address: "unix:${tmp.dir}/reflection.sock",
      reflection: true,
    }).createServer();
    await reflecting.listen();
    seen.reflectionListening = loaded();
    await Promise.all([plain.close({ graceMs: 0 }), reflecting.close({ graceMs: 0 })]);
    console.log(JSON.stringify(seen));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--input-type=module", "-e", script],
    { cwd: PACKAGE_DIR, timeout: 60_000 },
  );
  assert.deepEqual(JSON.parse(stdout), {
    imported: false,
    plainListening: false,
    reflectionListening: true,
  });
});

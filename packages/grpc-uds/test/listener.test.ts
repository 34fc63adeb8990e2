import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, lstatSync, readFileSync, writeFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { Code, jsonCodec, NearwireError, type Server } from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import { testHandlers, testService } from "./fixtures/test-service.js";
import { abstractName, startServer, tempDir } from "./helpers.js";

async function rejects(
  promise: Promise<unknown>,
  code: Code,
  reason?: string,
): Promise<NearwireError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof NearwireError, `expected NearwireError, got ${String(err)}`);
    assert.equal(err.code, code, `code ${err.code} (${err.message}) != ${code}`);
    if (reason !== undefined) assert.equal(err.reason, reason);
    return err;
  }
  assert.fail(`expected rejection with code ${code}`);
}

function serve(address: string): Server {
  const server = createGrpcTransport({ address }).createServer();
  return server.addService(testService, testHandlers, { codec: jsonCodec });
}

async function echoOnce(address: string): Promise<void> {
  const connection = await createGrpcTransport({ address }).connect();
  try {
    const c = connection.client(testService, { codec: jsonCodec });
    assert.deepEqual(await c.echo({ id: 1, text: "hi" }), { id: 1, text: "hi" });
  } finally {
    await connection.close();
  }
}

/** Leaves a stale socket file: a child binds it and is SIGKILLed (no cleanup runs). */
function staleSocket(path: string): Promise<void> {
  const code = `require("net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"))`;
  const child = spawn(process.execPath, ["-e", code], { stdio: "ignore" });
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

describe("grpc-uds listener behaviour", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("binds a path with mode 0600, serves, and removes the file on close", async () => {
    const path = `${tmp.dir}/mode.sock`;
    const server = serve(`unix:${path}`);
    await server.listen();
    assert.equal(server.address, `unix:${path}`);
    assert.equal(lstatSync(path).mode & 0o777, 0o600);
    await echoOnce(path);
    await server.close();
    assert.equal(existsSync(path), false);
  });

  it("honours socketMode", async () => {
    const path = `${tmp.dir}/mode2.sock`;
    const server = createGrpcTransport({ address: path, socketMode: 0o660 }).createServer();
    server.addService(testService, testHandlers, { codec: jsonCodec });
    await server.listen();
    assert.equal(lstatSync(path).mode & 0o777, 0o660);
    await server.close();
  });

  it("removes a stale socket file and binds", async () => {
    const path = `${tmp.dir}/stale.sock`;
    await staleSocket(path);
    assert.ok(lstatSync(path).isSocket());
    const server = serve(path);
    await server.listen();
    await echoOnce(`unix://${path}`);
    await server.close();
  });

  it("refuses a live socket with ALREADY_EXISTS address-in-use; the live server keeps serving", async () => {
    const child = await startServer(`unix:${tmp.dir}/live.sock`);
    try {
      await rejects(serve(child.address).listen(), Code.AlreadyExists, "address-in-use");
      await echoOnce(child.address);
    } finally {
      await child.stop();
    }
    assert.equal(existsSync(`${tmp.dir}/live.sock`), false);
  });

  it("refuses to replace a file that is not a socket", async () => {
    const path = `${tmp.dir}/plain-file`;
    writeFileSync(path, "keep me");
    await rejects(serve(path).listen(), Code.AlreadyExists, "address-in-use");
    assert.equal(readFileSync(path, "utf8"), "keep me");
  });

  it("rejects a path or abstract name over 107 bytes with INVALID_ARGUMENT path-too-long", async () => {
    const long = `${tmp.dir}/${"p".repeat(120)}.sock`;
    await rejects(serve(`unix:${long}`).listen(), Code.InvalidArgument, "path-too-long");
    await rejects(
      createGrpcTransport({ address: long }).connect(),
      Code.InvalidArgument,
      "path-too-long",
    );
    await rejects(
      serve(`unix-abstract:${"a".repeat(108)}`).listen(),
      Code.InvalidArgument,
      "path-too-long",
    );
    assert.equal(existsSync(long), false);
  });

  it("rejects a malformed address with INVALID_ARGUMENT", async () => {
    await rejects(serve("no-port-here").listen(), Code.InvalidArgument);
    await rejects(serve("unix:").listen(), Code.InvalidArgument);
  });

  it("serves an abstract name; a second bind gets ALREADY_EXISTS", async () => {
    const address = `unix-abstract:${abstractName("abs")}`;
    const server = serve(address);
    await server.listen();
    assert.equal(server.address, address);
    await echoOnce(address);
    await rejects(serve(address).listen(), Code.AlreadyExists, "address-in-use");
    await server.close();
    const again = serve(address);
    await again.listen();
    await again.close();
  });

  it("serves TCP on 127.0.0.1 port 0; connect() follows the bound port; a taken port is ALREADY_EXISTS", async () => {
    const transport = createGrpcTransport({ address: "tcp:127.0.0.1:0" });
    const server = transport
      .createServer()
      .addService(testService, testHandlers, { codec: jsonCodec });
    await server.listen();
    assert.match(server.address, /^127\.0\.0\.1:\d+$/);
    const connection = await transport.connect();
    const c = connection.client(testService, { codec: jsonCodec });
    assert.deepEqual(await c.echo({ id: 3, text: "tcp" }), { id: 3, text: "tcp" });
    await connection.close();
    await echoOnce(`tcp:${server.address}`);
    await rejects(serve(server.address).listen(), Code.AlreadyExists, "address-in-use");
    await server.close();
  });

  it("connect() to an address nobody listens on fails with UNAVAILABLE", async () => {
    await rejects(
      createGrpcTransport({ address: `${tmp.dir}/nobody.sock` }).connect(),
      Code.Unavailable,
    );
    await rejects(
      createGrpcTransport({ address: `unix-abstract:${abstractName("none")}` }).connect(),
      Code.Unavailable,
    );
  });

  it("graceful close lets a call in flight finish, then the connection reports UNAVAILABLE", async () => {
    const child = await startServer(`unix:${tmp.dir}/grace.sock`, undefined, 5000);
    const connection = await createGrpcTransport({ address: child.address }).connect();
    const c = connection.client(testService, { codec: jsonCodec });
    const inFlight = c.sleep({ ms: 300 });
    await c.echo({ id: 1, text: "" });
    const lines = child.stop();
    assert.deepEqual(await inFlight, { id: 0, text: "slept" });
    assert.ok((await lines).includes("CLOSED"));
    const closed = await connection.closed;
    assert.ok(closed instanceof NearwireError && closed.code === Code.Unavailable);
    await rejects(c.echo({ id: 1, text: "" }), Code.Unavailable);
    await connection.close();
    assert.equal(existsSync(`${tmp.dir}/grace.sock`), false);
  });

  it("after the grace period remaining calls are cancelled (handler signal aborts) and fail", async () => {
    const transport = createGrpcTransport({ address: `${tmp.dir}/force.sock` });
    const server = transport
      .createServer()
      .addService(testService, testHandlers, { codec: jsonCodec });
    await server.listen();
    const connection = await transport.connect();
    const c = connection.client(testService, { codec: jsonCodec });
    const before = await c.stats({ id: 0, text: "" });
    const failed = rejects(c.sleep({ ms: 30_000 }), Code.Unavailable, "peer-closed");
    await c.echo({ id: 1, text: "" });
    await server.close({ graceMs: 100 });
    await failed;
    const stats = testHandlers.stats({ id: 0, text: "" }, undefined as never) as {
      aborted: number;
    };
    assert.equal(stats.aborted, before.aborted + 1);
    await connection.close();
  });
});

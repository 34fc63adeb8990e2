import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Code, jsonCodec, NearwireError, type Server } from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import { abstractName, startServer, tempDir } from "./support/servers.js";
import { testHandlers, testService } from "./support/test-service.js";

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

// Address parsing and the socket-file lifecycle (stale, live, length, umask, worker threads)
// belong to @nearwire/socket and are tested there; these check grpc-uds on top of it.
describe("grpc-uds listener behaviour", () => {
  const tmp = tempDir();
  after(() => tmp.cleanup());

  it("binds a path with mode 0600, reports it as /path, serves, and removes the file on close", async () => {
    const path = `${tmp.dir}/mode.sock`;
    const server = serve(`unix:${path}`);
    await server.listen();
    assert.equal(server.address, path);
    assert.equal(lstatSync(path, { bigint: true }).mode & 0o777n, 0o600n);
    await echoOnce(path);
    await echoOnce(`unix://${path}`);
    await server.close();
    assert.equal(existsSync(path), false);
  });

  it("honours socketMode", async () => {
    const path = `${tmp.dir}/mode2.sock`;
    const server = createGrpcTransport({ address: path, socketMode: 0o660 }).createServer();
    server.addService(testService, testHandlers, { codec: jsonCodec });
    await server.listen();
    assert.equal(lstatSync(path, { bigint: true }).mode & 0o777n, 0o660n);
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

  it("a file that is not a socket → FAILED_PRECONDITION, and it is left alone", async () => {
    const path = `${tmp.dir}/plain-file`;
    writeFileSync(path, "keep me");
    await rejects(serve(path).listen(), Code.FailedPrecondition);
    assert.equal(readFileSync(path, "utf8"), "keep me");
    rmSync(path);
  });

  it("a path over 107 bytes → INVALID_ARGUMENT path-too-long on both sides", async () => {
    const long = `${tmp.dir}/${"p".repeat(120)}.sock`;
    await rejects(serve(`unix:${long}`).listen(), Code.InvalidArgument, "path-too-long");
    await rejects(
      createGrpcTransport({ address: long }).connect(),
      Code.InvalidArgument,
      "path-too-long",
    );
  });

  it("serves an abstract name given as @name or unix-abstract:name; a second bind gets ALREADY_EXISTS", async () => {
    const name = abstractName("abs");
    const server = serve(`@${name}`);
    await server.listen();
    assert.equal(server.address, `unix-abstract:${name}`);
    await echoOnce(`@${name}`);
    await echoOnce(server.address);
    await rejects(serve(server.address).listen(), Code.AlreadyExists, "address-in-use");
    await server.close();
    const again = serve(`unix-abstract:${name}`);
    await again.listen();
    await again.close();
  });

  it("serves TCP on 127.0.0.1 port 0 as tcp:host:port; connect() follows the bound port; a taken port is ALREADY_EXISTS", async () => {
    const transport = createGrpcTransport({ address: "127.0.0.1:0" });
    const server = transport
      .createServer()
      .addService(testService, testHandlers, { codec: jsonCodec });
    await server.listen();
    assert.match(server.address, /^tcp:127\.0\.0\.1:\d+$/);
    const connection = await transport.connect();
    const c = connection.client(testService, { codec: jsonCodec });
    assert.deepEqual(await c.echo({ id: 3, text: "tcp" }), { id: 3, text: "tcp" });
    await connection.close();
    await echoOnce(server.address);
    await echoOnce(server.address.slice("tcp:".length));
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

  it("@grpc/grpc-js loads in a process that bound a socket file first (issue 15)", () => {
    const fixture = fileURLToPath(new URL("./fixtures/bind-then-load-grpc.mjs", import.meta.url));
    const out = execFileSync(process.execPath, [fixture, `${tmp.dir}/then-load.sock`], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      encoding: "utf8",
    });
    assert.equal(out, "LOADED\n");
    assert.equal(existsSync(`${tmp.dir}/then-load.sock`), false);
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
    const failed = rejects(c.sleep({ ms: 30_000 }), Code.Unavailable, "server-closing");
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

/**
 * A service written only as fixtures/greeter.proto, generated into fixtures/generated/, served in
 * a child process and called from here with typed clients: on uds, shm-ring and grpc-uds; from a
 * client read at run time by servicesFromProto; and from a stock Python grpcio client.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { servicesFromProto } from "@nearwire/codec-protobuf";
import { createTmpResources, startServerProcess } from "@nearwire/conformance";
import type { Client, Transport } from "@nearwire/core";
import { createGrpcTransport } from "@nearwire/grpc-uds";
import { createShmRingTransport } from "@nearwire/shm-ring";
import { createUdsTransport } from "@nearwire/uds";
import {
  codec,
  Greeter,
  type HelloReply,
  type HelloRequest,
  Mood,
} from "./fixtures/generated/greeter_nearwire.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const SERVER = join(FIXTURES, "greeter-server.ts");
const PYTHON = "/usr/bin/python3";

const transports: Record<string, (options: { address: string }) => Transport> = {
  uds: createUdsTransport,
  "shm-ring": createShmRingTransport,
  "grpc-uds": createGrpcTransport,
};

const tmp = createTmpResources();
after(async () => assert.deepEqual(await tmp.cleanup(), []));

function request(fields: Partial<HelloRequest>): HelloRequest {
  return {
    name: "",
    count: 0,
    payload: new Uint8Array(0),
    mood: Mood.MOOD_UNSPECIFIED,
    tags: [],
    scores: {},
    ...fields,
  };
}

/** Every call kind through a typed client; the handlers' replies say what crossed. */
async function callEveryKind(greeter: Client<typeof Greeter>): Promise<void> {
  const reply: HelloReply = await greeter.SayHello(
    request({
      name: "ada",
      count: 2 ** 40,
      payload: new Uint8Array([1, 2, 3]),
      mood: Mood.MOOD_GRUMPY,
      tags: ["a", "b"],
      scores: { x: 3, y: 4 },
      origin: { host: "node", pid: 7 },
    }),
    { timeoutMs: 10_000 },
  );
  assert.equal(reply.message, "hello, ada");
  assert.equal(reply.total, 2 ** 40 + 2 + 7);
  assert.deepEqual([...reply.payload], [3, 2, 1]);
  assert.equal(reply.mood, Mood.MOOD_GRUMPY);
  assert.equal(reply.detail, "origin");
  assert.deepEqual([reply.origin?.host, reply.origin?.pid], ["node", 7]);

  const countdown: number[] = [];
  for await (const r of greeter.Countdown(request({ count: 3 }))) countdown.push(r.total);
  assert.deepEqual(countdown, [3, 2, 1]);

  const names = ["ada", "bob", "cy"].map((name) => request({ name }));
  const collected = await greeter.Collect(names);
  assert.deepEqual([collected.message, collected.total], ["ada,bob,cy", 3]);

  const chat: (string | null | undefined)[][] = [];
  for await (const r of greeter.Chat([
    request({ name: "hi", note: "n1" }),
    request({ name: "yo" }),
  ]))
    chat.push([r.message, r.detail, r.text]);
  assert.deepEqual(chat, [
    ["HI", "text", "n1"],
    ["YO", undefined, ""],
  ]);
}

function pythonMissing(): string | false {
  const py = spawnSync(PYTHON, ["-c", "import grpc, google.protobuf"], { encoding: "utf8" });
  if (py.status !== 0)
    return `${PYTHON} cannot import grpc (apt-get install python3-grpcio python3-protobuf, or run packages/grpc-uds/scripts/install-interop-deps.sh)`;
  if (spawnSync("protoc", ["--version"]).status !== 0) return "protoc is not installed";
  return false;
}

/** Runs `python3 args…` without blocking the event loop; resolves with its exit and output. */
function runPython(
  args: string[],
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(PYTHON, args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      stderr += s;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** A client read at run time from the .proto: its calls are those of the generated one. */
async function loaderClient(address: string): Promise<void> {
  const proto = servicesFromProto(join(FIXTURES, "greeter.proto"));
  await using connection = await createUdsTransport({ address }).connect();
  const greeter = connection.client(proto.service("Greeter"), { codec: proto.codec });
  await callEveryKind(greeter as unknown as Client<typeof Greeter>);
}

/** The stock Python grpcio client (fixtures/greeter_client.py) with protoc's stubs. */
async function pythonClient(address: string): Promise<void> {
  const stubs = mkdtempSync(join(tmpdir(), "nearwire-py-"));
  try {
    const protoc = spawnSync(
      "protoc",
      [`-I${FIXTURES}`, `--python_out=${stubs}`, "greeter.proto"],
      {
        encoding: "utf8",
      },
    );
    assert.equal(protoc.status, 0, protoc.stderr);
    const run = await runPython([join(FIXTURES, "greeter_client.py"), `unix:${address}`, stubs]);
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(out.say, {
      message: "hello, py",
      total: 2 ** 40 + 2 + 7,
      payload: [3, 2, 1],
      mood: Mood.MOOD_HAPPY,
      detail: "origin",
      origin: ["python", 7],
    });
    assert.deepEqual(
      (out.countdown as { total: number }[]).map((r) => r.total),
      [3, 2, 1],
    );
    assert.deepEqual(out.collect, {
      message: "ada,bob,cy",
      total: 3,
      payload: [],
      mood: 0,
      detail: null,
    });
    assert.deepEqual(
      (out.chat as { message: string; detail: string | null; text?: string }[]).map((r) => [
        r.message,
        r.detail,
        r.text,
      ]),
      [
        ["HI", "text", "n1"],
        ["YO", null, undefined],
      ],
    );
  } finally {
    rmSync(stubs, { recursive: true, force: true });
  }
}

describe("a service from greeter.proto, served in a child process", () => {
  for (const [kind, factory] of Object.entries(transports)) {
    test(`${kind}: typed handlers there, a typed client here`, async (t) => {
      const address = tmp.socketPath();
      const server = await startServerProcess(SERVER, [kind, address]);
      try {
        await using connection = await factory({ address }).connect();
        await callEveryKind(connection.client(Greeter, { codec }));
        if (kind === "uds")
          await t.test("a client from servicesFromProto(greeter.proto)", () =>
            loaderClient(address),
          );
        if (kind === "grpc-uds")
          await t.test("a stock Python grpcio client", { skip: pythonMissing() }, () =>
            pythonClient(address),
          );
      } finally {
        await server.stop();
      }
    });
  }
});

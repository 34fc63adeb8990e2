// Runs every example as its first lines say, as separate processes (a server and a client, or
// the pool's own worker threads), and checks what it prints. A server must exit 0 on SIGTERM.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const examples = fileURLToPath(new URL("..", import.meta.url));
const STEP_MS = 30_000;
const tmp = mkdtempSync(join(tmpdir(), "nearwire-examples-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

interface Output {
  stdout: string;
  stderr: string;
}

/** Collects a child's output; resolves when it exits 0, rejects (with its output) otherwise. */
function finished(child: ChildProcess, what: string): Promise<Output> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), STEP_MS);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${what} → ${code ?? signal}\n${stdout}${stderr}`));
    });
  });
}

/** `command args` from the examples folder, to its end. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Output> {
  const child = spawn(command, args, {
    cwd: examples,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return finished(child, `${command} ${args.join(" ")}`);
}

/** `node --import tsx file args` from the examples folder, to its end. */
const tsx = (file: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  run(process.execPath, ["--import", "tsx", file, ...args], env);

/**
 * Starts `node --import tsx file args` as a server, waits for its "serving on" line, runs
 * `client()`, then sends SIGTERM: the server must exit 0 and leave no socket file at `socket`.
 */
async function withServer<T>(
  file: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  socket: string,
  client: () => Promise<T>,
  /** Given the server's whole stdout once it has exited. */
  served?: (stdout: string) => void,
): Promise<T> {
  const server = spawn(process.execPath, ["--import", "tsx", file, ...args], {
    cwd: examples,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const done = finished(server, `${file} ${args.join(" ")}`);
  done.catch(() => {}); // awaited below; a server that dies early fails the wait for its line
  try {
    await new Promise<void>((resolve, reject) => {
      let seen = "";
      server.stdout?.on("data", (d: Buffer) => {
        seen += d;
        if (seen.includes("serving on")) resolve();
      });
      done.then(() => reject(new Error(`${file} exited before serving`)), reject);
    });
    const result = await client();
    server.kill("SIGTERM");
    const exited = await done;
    served?.(exited.stdout);
    assert.equal(existsSync(socket), false, `${file} removed its socket file`);
    return result;
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  }
}

/** A fresh socket path for one example run. */
let sockets = 0;
const socketPath = (name: string) => join(tmp, `${name}-${++sockets}.sock`);

/** The first python3 that can import grpc (Debian's python3-grpcio), or undefined. */
function pythonWithGrpc(): string | undefined {
  return ["python3", "/usr/bin/python3"].find(
    (python) => spawnSync(python, ["-c", "import grpc"], { stdio: "ignore" }).status === 0,
  );
}

// Two at a time: each example is two Node processes, and the machine may have two cores.
describe("examples", { concurrency: 2 }, () => {
  for (const transport of ["uds", "grpc-uds", "shm-ring"]) {
    it(`greeter on ${transport}: serve, call from another process`, async () => {
      const GREETER_ADDRESS = socketPath(`greeter-${transport}`);
      const env = { GREETER_ADDRESS };
      const out = await withServer(
        "greeter/greeter.ts",
        ["serve", transport],
        env,
        GREETER_ADDRESS,
        () => tsx("greeter/greeter.ts", ["call", transport, "Ada"], env),
      );
      assert.equal(out.stdout, "hello, Ada\n");
    });
  }

  for (const transport of ["uds", "grpc-uds", "shm-ring"]) {
    it(`proto: a service from greeter.proto with interceptors on ${transport}`, async () => {
      const PROTO_ADDRESS = socketPath(`proto-${transport}`);
      const env = { PROTO_ADDRESS };
      let served = "";
      const out = await withServer(
        "proto/proto.ts",
        ["serve", transport],
        env,
        PROTO_ADDRESS,
        () => tsx("proto/proto.ts", ["call", transport, "Ada"], env),
        (stdout) => {
          served = stdout;
        },
      );
      assert.equal(
        out.stdout,
        [
          `hello, Ada (x-served-by: nearwire ${transport})`,
          "3… 2… 1… go, Ada! (x-countdown: done)",
          "without a token: not allowed to call /example.v1.Greeter/SayHello",
          "",
        ].join("\n"),
      );
      // The server's logging interceptor: one line per call, the refused one too.
      const logged = served.split("\n").filter((l) => l.startsWith("server "));
      assert.deepEqual(
        logged.map((l) => l.replace(/ peer=.*?(?= —|$)/, "")),
        [
          "server /example.v1.Greeter/SayHello OK",
          "server /example.v1.Greeter/Countdown OK",
          "server /example.v1.Greeter/SayHello PERMISSION_DENIED — not allowed to call /example.v1.Greeter/SayHello",
        ],
      );
    });
  }

  it("proto: generated/greeter_nearwire.ts is what nearwire-protoc makes of greeter.proto", async () => {
    const out = join(tmp, "proto-gen");
    await run(process.execPath, [
      fileURLToPath(import.meta.resolve("@nearwire/protoc-gen/package.json")).replace(
        /package\.json$/,
        "dist/nearwire-protoc.js",
      ),
      "-I",
      "proto",
      "--out",
      out,
      "proto/greeter.proto",
    ]);
    assert.equal(
      readFileSync(join(out, "greeter_nearwire.ts"), "utf8"),
      readFileSync(join(examples, "proto/generated/greeter_nearwire.ts"), "utf8"),
    );
  });

  it("codecs: the same handler with json, msgpack and protobuf", async () => {
    const sizes: Record<string, number> = {};
    for (const codec of ["json", "msgpack", "protobuf"]) {
      const CODECS_ADDRESS = socketPath(`codecs-${codec}`);
      const env = { CODECS_ADDRESS };
      const out = await withServer("codecs/codecs.ts", ["serve", codec], env, CODECS_ADDRESS, () =>
        tsx("codecs/codecs.ts", ["call", codec], env),
      );
      const m = /^(\w+): request (\d+) B, receipt "3 × coffee", 750 cents\n$/.exec(out.stdout);
      assert.ok(m, out.stdout);
      assert.equal(m[1], codec);
      sizes[codec] = Number(m[2]);
    }
    // The schema-less codecs carry the field names; protobuf carries field numbers only.
    assert.ok(sizes.json && sizes.msgpack && sizes.protobuf, JSON.stringify(sizes));
    assert.ok(sizes.protobuf < sizes.msgpack && sizes.msgpack < sizes.json, JSON.stringify(sizes));
  });

  it("streaming: a server stream and a bidi stream", async () => {
    const STREAMING_ADDRESS = socketPath("streaming");
    const env = { STREAMING_ADDRESS };
    const out = await withServer("streaming/streaming.ts", ["serve"], env, STREAMING_ADDRESS, () =>
      tsx("streaming/streaming.ts", ["call"], env),
    );
    assert.equal(
      out.stdout,
      "countdown: 5 4 3 2 1 0\nshout: HELLO\nshout: STREAMING\nshout: WORLD\n",
    );
  });

  it("worker pool: four calls spread over two worker threads", async () => {
    const out = await tsx("worker-pool/pool.ts", []);
    const lines = out.stdout.trim().split("\n");
    const names = ["Ada", "Grace", "Edsger", "Barbara"];
    assert.equal(lines.length, names.length, out.stdout);
    const threads = new Set<string>();
    for (const [i, line] of lines.entries()) {
      const m = /^hello, (\w+) \(worker thread (\d+)\)$/.exec(line);
      assert.ok(m, line);
      assert.equal(m[1], names[i]);
      threads.add(m[2] ?? "");
    }
    assert.equal(threads.size, 2, `both workers answered: ${out.stdout}`);
  });

  it("transfer: serve a folder; upload, status, download from another process", async () => {
    const TRANSFER_ADDRESS = socketPath("transfer");
    const env = { TRANSFER_ADDRESS };
    const root = join(tmp, "transfer-root");
    const out = await withServer(
      "transfer/transfer.ts",
      ["serve", root],
      env,
      TRANSFER_ADDRESS,
      () => tsx("transfer/transfer.ts", ["client"], env),
    );
    assert.equal(
      out.stdout,
      [
        "uploaded uploads/random.bin: 3145728 B (progress reached 3145728 B)",
        "status: committed true, 3145728 B",
        "downloaded 3145728 B, sha256 matches",
        "",
      ].join("\n"),
    );
    assert.ok(existsSync(join(root, "uploads/random.bin")), "the server committed the file");
  });

  const python = pythonWithGrpc();
  it("health + Python: a stock grpcio client calls grpc-uds (health Check, JSON greeter)", {
    skip: python === undefined && "no python3 can import grpc (apt-get install python3-grpcio)",
  }, async () => {
    assert.ok(python);
    const HEALTH_ADDRESS = socketPath("health");
    const env = { HEALTH_ADDRESS };
    const out = await withServer("health-python/server.ts", [], env, HEALTH_ADDRESS, () =>
      run(python, ["health-python/client.py", HEALTH_ADDRESS]),
    );
    assert.equal(
      out.stdout,
      [
        "health (server): SERVING",
        "health example.Greeter: SERVING",
        "health no.Such: NOT_FOUND",
        "greeter: hello, Python",
        "",
      ].join("\n"),
    );
  });
});

import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { makeCase } from "../src/measure/case-spec.js";
import {
  buildGoBench,
  GO_INSTALL_HINT,
  GO_SOURCE_DIR,
  goSourceHash,
} from "../src/measure/go-build.js";
import { GO_TRANSPORTS } from "../src/measure/go-case.js";
import { Orchestrator } from "../src/measure/runner.js";
import type { BenchReport } from "../src/report/summary.js";
import { runTransferBench } from "../src/transfer/transfer-bench.js";
import { GO_SEED_TRANSPORTS, transferPlan } from "../src/transfer/transfer-plan.js";

const work = mkdtempSync(join(tmpdir(), "nwb-go-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** Built once for the file (cached under apps/bench/out/go-bin after the first time). */
const built = buildGoBench();
/** Why the tests that run Go are skipped here, printed by the reporter. */
const noGo =
  "failed" in built ? `Go yardstick not available: ${built.failed}; ${GO_INSTALL_HINT}` : undefined;

interface GoResult {
  inFlight: number;
  count: number;
  elapsedNs: number;
  msgsPerSec: number;
  wireBytes: number;
  clientCpuUsPerMsg: number;
  warmup: { ns: number; calls: number; steady: boolean };
  latency: {
    count: number;
    minNs: number;
    p50Ns: number;
    p99Ns: number;
    p999Ns: number;
    maxNs: number;
  };
}

/** Starts a server subcommand; resolves with its announced address once it listens. */
async function startServer(
  binary: string,
  sub: string,
  listen: string,
): Promise<{ child: ChildProcess; address: string }> {
  const child = spawn(binary, [sub, "-listen", listen], { stdio: ["ignore", "pipe", "pipe"] });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("exit", (code) => reject(new Error(`${sub} exited ${code}`)));
  });
  const ready = JSON.parse(first) as { t: string; address: string };
  assert.equal(ready.t, "ready");
  return { child, address: ready.address };
}

/** Ends a server by its PID (SIGTERM) and waits for it. */
async function stopServer(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (child.pid !== undefined) process.kill(child.pid, "SIGTERM");
  return exited;
}

/** Runs a client subcommand to the end; its JSON lines. */
function runClient(binary: string, args: string[]): Promise<GoResult[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("exit", (code) =>
      code === 0
        ? resolve(
            out
              .trim()
              .split("\n")
              .map((l) => JSON.parse(l) as GoResult),
          )
        : reject(new Error(`client exited ${code}: ${err}${out}`)),
    );
  });
}

function assertSane(r: GoResult, inFlight: number, samplesFile?: string): void {
  assert.equal(r.inFlight, inFlight);
  assert.equal(r.wireBytes, 64);
  assert.ok(r.count > 0 && r.msgsPerSec > 0);
  assert.ok(r.elapsedNs >= 150e6, "a 200 ms window");
  assert.equal(r.latency.count, r.count, "every call recorded");
  const l = r.latency;
  assert.ok(0 < l.minNs && l.minNs <= l.p50Ns && l.p50Ns <= l.p99Ns && l.p99Ns <= l.p999Ns);
  assert.ok(l.p999Ns <= l.maxNs && l.maxNs < 1e9, "round trips under a second");
  assert.ok(r.warmup.calls >= 5000, "warm-up makes at least 5000 calls");
  assert.ok(r.clientCpuUsPerMsg > 0);
  const rate = r.count / (r.elapsedNs / 1e9);
  assert.ok(Math.abs(rate - r.msgsPerSec) / rate < 1e-9);
  if (samplesFile !== undefined) assert.equal(statSync(samplesFile).size, 8 * r.count);
}

const CLIENT_ARGS = ["-duration", "200ms", "-warmup", "100ms", "-size", "64", "-inflight", "1,8"];

for (const [sub, listen] of [
  ["grpc", "unix"],
  ["grpc", "tcp"],
  ["uds", "unix"],
] as const) {
  test(`Go ${sub}-client against ${sub}-server over ${listen}: sane JSON for 1 and 8 in flight`, async (t) => {
    if ("failed" in built) return t.skip(noGo);
    const sock = join(work, `${sub}.sock`);
    const server = await startServer(
      built.binary,
      `${sub}-server`,
      listen === "tcp" ? "tcp:127.0.0.1:0" : sock,
    );
    try {
      if (listen === "tcp") assert.match(server.address, /^tcp:127\.0\.0\.1:\d+$/);
      else assert.equal(server.address, sock);
      const samples = join(work, `${sub}-${listen}.samples`);
      const results = await runClient(built.binary, [
        `${sub}-client`,
        "-target",
        server.address,
        ...CLIENT_ARGS,
        "-samples",
        samples,
      ]);
      assert.equal(results.length, 2);
      assertSane(results[0] as GoResult, 1);
      assertSane(results[1] as GoResult, 8, samples);
    } finally {
      assert.equal(await stopServer(server.child), 0, "a clean exit on SIGTERM");
    }
    assert.equal(existsSync(sock), false, "the socket file is removed");
  });
}

test("go-* rows under the orchestrator: the Go children, CPU marks, the HDR summary from every sample", async (t) => {
  if ("failed" in built) return t.skip(noGo);
  const orchestrator = new Orchestrator({
    durationMs: 150,
    warmupMs: 50,
    pin: false,
    seed: 1,
    goBinary: built.binary,
  });
  try {
    for (const transport of GO_TRANSPORTS) {
      const spec = makeCase({
        mode: transport === "go-uds" ? "throughput" : "latency",
        layer: "baseline",
        transport,
        codec: "bytes",
        message: "chunk",
        payload: "64B",
        payloadBytes: 64,
        inFlight: transport === "go-uds" ? 64 : 1,
      });
      const run = await orchestrator.runCase(spec);
      assert.ok(run.latency, transport);
      assert.equal(run.latency.count, run.count, `${transport}: every call in the histogram`);
      assert.ok(run.latency.hdr.length > 0, "the HDR histogram is kept");
      assert.ok(run.latency.p50Ns > 0 && run.latency.p50Ns <= run.latency.maxNs);
      assert.ok(run.serverCpuUsPerMsg > 0 && run.clientCpuUsPerMsg > 0);
      assert.ok(run.warmup, "the warm-up is recorded");
      assert.equal(typeof run.warmup.steady, "boolean");
    }
  } finally {
    orchestrator.close();
  }
  assert.equal(existsSync(orchestrator.dir), false, "sockets and sample files removed");
});

test("a build that fails (no grpc-go in GOPATH) is reported, not thrown", (t) => {
  if ("failed" in built) return t.skip(noGo);
  const r = buildGoBench(
    { ...process.env, NEARWIRE_BENCH_GOPATH: join(work, "empty") },
    join(work, "cache"),
  );
  assert.ok("failed" in r);
  assert.match(r.failed, /^go build failed: .*google\.golang\.org\/grpc/);
  const again = buildGoBench(process.env, join(work, "cache2"));
  assert.ok("binary" in again && !again.cached);
  const cached = buildGoBench(process.env, join(work, "cache2"));
  assert.ok("binary" in cached && cached.cached && cached.binary === again.binary);
});

test("the cache key changes with any Go source and with the toolchain", () => {
  const dir = join(work, "src");
  mkdirSync(dir);
  cpSync(GO_SOURCE_DIR, dir, { recursive: true });
  const a = goSourceHash("go1.19.8 linux/amd64", dir);
  assert.equal(a, goSourceHash("go1.19.8 linux/amd64", GO_SOURCE_DIR));
  assert.notEqual(a, goSourceHash("go1.22.0 linux/amd64", dir));
  writeFileSync(join(dir, "main.go"), `${readFileSync(join(dir, "main.go"), "utf8")}\n// x\n`);
  assert.notEqual(a, goSourceHash("go1.19.8 linux/amd64", dir));
});

test("the bench without go on PATH: the go rows are skipped with one line, the run succeeds", async () => {
  const bin = join(work, "bin-without-go");
  mkdirSync(bin);
  for (const tool of ["taskset"]) {
    const which = ["/usr/bin", "/bin", "/usr/sbin"].map((d) => join(d, tool)).find(existsSync);
    if (which !== undefined) symlinkSync(which, join(bin, tool));
  }
  const json = join(work, "no-go.json");
  const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
  const r = await new Promise<{ code: number | null; out: string }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        cli,
        "--filter",
        "^latency:(go-uds|bare-net-uds)/bytes/64B$",
        "--duration",
        "50ms",
        "--warmup",
        "20ms",
        "--json",
        json,
      ],
      { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PATH: bin } },
    );
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, out }));
  });
  assert.equal(r.code, 0, r.out);
  const skipped = r.out.split("\n").filter((l) => /go-\* rows skipped/.test(l));
  assert.equal(skipped.length, 1, r.out);
  assert.match(
    skipped[0] as string,
    /\(go not found on PATH\); to measure them: apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev/,
  );
  const report = JSON.parse(readFileSync(json, "utf8")) as BenchReport;
  assert.deepEqual(
    report.cases.map((c) => c.spec.key),
    ["latency:bare-net-uds/bytes/64B"],
  );
  const go = report.availability.find((a) => a.name.startsWith("go"));
  assert.ok(go);
  assert.equal(go.status, "absent");
});

test("netrpc: the transfer yardstick commits the uploads whole, with and without fsync", async (t) => {
  if ("failed" in built) return t.skip(noGo);
  for (const fsync of [true, false]) {
    const root = join(work, `netrpc-root-${fsync}`);
    mkdirSync(root);
    const sock = join(work, `netrpc-${fsync}.sock`);
    const server: ChildProcess = spawn(
      built.binary,
      ["netrpc-server", "-listen", sock, "-root", root, `-fsync=${fsync}`],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: server.stdout as NodeJS.ReadableStream }).once("line", resolve);
        server.once("exit", (code) => reject(new Error(`netrpc-server exited ${code}`)));
      });
      assert.equal((JSON.parse(first) as { t: string }).t, "ready");
      const size = 300_001; // not a multiple of the chunk: a short last chunk
      const [res] = (await runClient(built.binary, [
        "netrpc-client",
        "-target",
        sock,
        "-clients",
        "2",
        "-size",
        String(size),
        "-warmup",
        "100ms",
        "-duration",
        "300ms",
      ])) as unknown as {
        uploads: number;
        elapsedNs: number;
        meanNs: number;
        p99Ns: number;
        cpuUs: number;
        peakRssBytes: number;
      }[];
      assert.ok(res, "one result line");
      assert.ok(res.uploads > 0, `uploads in the window: ${res.uploads}`);
      assert.ok(res.elapsedNs >= 300e6 && res.meanNs > 0 && res.p99Ns >= res.meanNs * 0.5);
      assert.ok(res.cpuUs > 0 && res.peakRssBytes > 0);
      // Both clients uploaded the same bytes; the server checked each file's SHA-256 before
      // its rename (a mismatch fails the client), and no partial file is left behind.
      const files = ["c0.bin", "c1.bin"].map((f) => readFileSync(join(root, "seed", f)));
      for (const f of files) assert.equal(f.length, size);
      assert.ok((files[0] as Buffer).equals(files[1] as Buffer));
      assert.ok(
        (files[0] as Buffer).some((b) => b !== 0),
        "random bytes, not zeros",
      );
      assert.deepEqual(
        readdirSync(root).filter((n) => n.endsWith(".part")),
        [],
      );
    } finally {
      assert.equal(await stopServer(server), 0, "a clean exit on SIGTERM");
    }
    assert.equal(existsSync(sock), false, "the socket file is removed");
  }
});

test("go-netrpc seed rows under the transfer orchestrator: both sides' CPU and RSS", async (t) => {
  if ("failed" in built) return t.skip(noGo);
  const cases = transferPlan("default", {
    transports: [...GO_SEED_TRANSPORTS],
    codecs: [],
  }).filter((c) => c.kind === "seed");
  assert.equal(cases.length, 2);
  const report = await runTransferBench(cases, { profile: "small", pin: false, out: () => {} });
  for (const run of report.runs) {
    assert.equal(run.error, undefined, run.spec.key);
    assert.ok((run.count ?? 0) > 0, `${run.spec.key}: uploads ${run.count}`);
    assert.equal(run.bytes, (run.count ?? 0) * 2 * 1024 * 1024);
    assert.ok((run.client?.cpuUs ?? 0) > 0 && (run.server?.cpuUs ?? 0) > 0, run.spec.key);
    assert.ok((run.client?.peakRssBytes ?? 0) > 0 && (run.server?.peakRssBytes ?? 0) > 0);
  }
});

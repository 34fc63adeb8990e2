import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { makeCase } from "../src/measure/case-spec.js";
import { Orchestrator } from "../src/measure/runner.js";
import type { BenchReport } from "../src/report/summary.js";
import { found } from "./support/found.js";

const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "nwb-test-"));
after(() => rmSync(work, { recursive: true, force: true }));

function runCli(
  args: string[],
): Promise<{ code: number | null; pid: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", cli, ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(
      () => child.pid !== undefined && process.kill(child.pid, "SIGKILL"),
      60_000,
    );
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, pid: child.pid ?? -1, stdout, stderr });
    });
  });
}

test("one real case end to end: server and client processes, table, JSON, Markdown, SVG, HTML", async () => {
  const json = join(work, "r.json");
  const md = join(work, "r.md");
  const svg = join(work, "svg");
  const html = join(work, "r.html");
  const r = await runCli([
    "--filter",
    "^latency:bare-net-uds/bytes/64B$",
    "--transports",
    "bare-net-uds",
    "--duration",
    "60ms",
    "--warmup",
    "20ms",
    "--json",
    json,
    "--markdown",
    md,
    "--svg",
    svg,
    "--html",
    html,
  ]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /^nearwire-bench {2}node v\d+/);
  assert.match(r.stdout, /pinning (on|off)/);
  assert.match(r.stdout, /bare-net-uds\/bytes\/64B +64 B/);
  assert.match(r.stderr, /latency:bare-net-uds\/bytes\/64B/, "progress goes to stderr");
  const report = JSON.parse(readFileSync(json, "utf8")) as BenchReport;
  assert.equal(report.cases.length, 1);
  const run = found(report.cases[0]?.runs[0], "the run");
  assert.ok(run.latency);
  assert.ok(run.latency.count > 0);
  assert.equal(run.latency.count, run.count, "every call of the window is a sample");
  assert.ok(run.latency.p50Ns > 0 && run.latency.p50Ns <= run.latency.maxNs);
  assert.ok(run.clientCpuUsPerMsg > 0);
  assert.ok(run.serverCpuUsPerMsg > 0);
  assert.ok(report.machine.cores >= 1);
  assert.deepEqual(report.command.slice(0, 2), ["--filter", "^latency:bare-net-uds/bytes/64B$"]);
  assert.match(readFileSync(md, "utf8"), /bare-net-uds\/bytes\/64B/);
  assert.ok(readdirSync(svg).includes("latency.svg"));
  assert.match(readFileSync(html, "utf8"), /<tr data-id="bare-net-uds\/bytes\/64B">/);
  assert.equal(existsSync(join(tmpdir(), `nwb-${r.pid}`)), false, "socket directory removed");
});

test("bad command line: exit 2 with usage, nothing run", async () => {
  const r = await runCli(["--sizes", "64KB"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--sizes/);
  assert.match(r.stderr, /nearwire-bench \[options\]/);
});

test("a case that cannot start fails alone; the next case still runs and nothing is left behind", async () => {
  const o = new Orchestrator({ durationMs: 40, warmupMs: 10, pin: false, seed: 1 });
  try {
    const broken = makeCase({
      mode: "latency",
      layer: "rpc",
      transport: "no-such-transport",
      codec: "json",
      message: "tick",
      payload: "tick",
      payloadBytes: 0,
      inFlight: 1,
    });
    await assert.rejects(o.runCase(broken), /no-such-transport not available/);
    const ok = makeCase({
      mode: "stream",
      layer: "baseline",
      transport: "bare-net-uds",
      codec: "bytes",
      message: "chunk",
      payload: "64B",
      payloadBytes: 64,
      inFlight: 1,
    });
    const run = await o.runCase(ok);
    assert.ok(run.count > 0);
    assert.equal(run.latency, undefined);
    assert.deepEqual(readdirSync(o.dir), [], "socket files removed after each case");
  } finally {
    o.close();
  }
  assert.equal(existsSync(o.dir), false);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, NearwireError } from "@nearwire/core";
import { parseBenchArgs } from "../src/cli/args.js";

test("no flags: the default run writes every output to the default place", () => {
  const o = parseBenchArgs([]);
  assert.equal(o.full, false);
  assert.equal(o.ci, false);
  assert.equal(o.pin, undefined);
  assert.equal(o.seed, 1);
  assert.equal(o.json, undefined);
  assert.equal(o.markdown, undefined);
  assert.equal(o.svg, undefined);
  assert.equal(o.baselines, true);
  assert.equal(o.durationMs, undefined);
});

test("lists, sizes, durations and the filter are read", () => {
  const o = parseBenchArgs([
    "--transports",
    "uds, shm-ring",
    "--codecs=json,raw",
    "--messages",
    "Tick,chunk",
    "--sizes",
    "64B,1KiB,64KiB,1MiB,100",
    "--duration",
    "0.5s",
    "--warmup",
    "20ms",
    "--filter",
    "^uds/",
    "--repeat",
    "3",
    "--seed",
    "42",
    "--no-pin",
    "--full",
  ]);
  assert.deepEqual(o.transports, ["uds", "shm-ring"]);
  assert.deepEqual(o.codecs, ["json", "raw"]);
  assert.deepEqual(o.messages, ["tick", "chunk"]);
  assert.deepEqual(o.sizes, [64, 1024, 65536, 1048576, 100]);
  assert.equal(o.durationMs, 500);
  assert.equal(o.warmupMs, 20);
  assert.ok(o.filter);
  assert.ok(o.filter.test("uds/json/64B"));
  assert.equal(o.filter.test("grpc-uds/json/64B"), false);
  assert.equal(o.repeat, 3);
  assert.equal(o.seed, 42);
  assert.equal(o.pin, false);
  assert.equal(o.full, true);
});

test("--json, --markdown, --svg and --html take an optional value", () => {
  const a = parseBenchArgs(["--json", "--markdown", "r.md", "--svg"]);
  assert.equal(a.json, "");
  assert.equal(a.markdown, "r.md");
  assert.equal(a.svg, "");
  const b = parseBenchArgs(["--json", "out.json"]);
  assert.equal(b.json, "out.json");
  assert.equal(b.markdown, undefined);
  assert.equal(b.html, undefined);
  assert.equal(parseBenchArgs(["--html"]).html, "");
  assert.equal(parseBenchArgs(["--html", "--json"]).html, "");
  assert.equal(parseBenchArgs(["--html", "r.html"]).html, "r.html");
});

test("--update-baseline implies --ci", () => {
  const o = parseBenchArgs(["--update-baseline"]);
  assert.equal(o.ci, true);
  assert.equal(o.updateBaseline, true);
});

const bad: [string, string[]][] = [
  ["unknown flag", ["--fast"]],
  ["positional", ["uds"]],
  ["missing value", ["--duration"]],
  ["invalid regex", ["--filter", "("]],
  ["unknown message", ["--messages", "tick,quote"]],
  ["unreadable size", ["--sizes", "64KB"]],
  ["size zero", ["--sizes", "0"]],
  ["size too large", ["--sizes", "32MiB"]],
  ["duration unit", ["--duration", "5min"]],
  ["duration too short", ["--duration", "1ms"]],
  ["repeat zero", ["--repeat", "0"]],
  ["repeat not a number", ["--repeat", "two"]],
  ["seed negative", ["--seed", "-1"]],
  ["empty list", ["--codecs", ","]],
  ["pin and no-pin", ["--pin", "--no-pin"]],
];

for (const [name, argv] of bad) {
  test(`bad input is INVALID_ARGUMENT: ${name}`, () => {
    assert.throws(
      () => parseBenchArgs(argv),
      (err: unknown) => err instanceof NearwireError && err.code === Code.InvalidArgument,
    );
    // Parsing is pure: a good command line still parses after a bad one.
    assert.equal(parseBenchArgs(["--ci"]).ci, true);
  });
}

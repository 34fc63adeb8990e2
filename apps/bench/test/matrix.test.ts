import assert from "node:assert/strict";
import { test } from "node:test";
import { parseBenchArgs } from "../src/cli/args.js";
import {
  buildCiMatrix,
  buildMatrix,
  comparisonKey,
  type MatrixInput,
} from "../src/measure/matrix.js";

const everything: MatrixInput = {
  transports: [
    { id: "uds", layer: "rpc", baseline: "bare-net-uds" },
    { id: "tcp", layer: "rpc", baseline: "bare-net-tcp" },
    { id: "uds-channel", layer: "channel", baseline: "bare-net-uds" },
    { id: "grpc-uds", layer: "rpc", baseline: "bare-grpc-js" },
    { id: "grpc-tcp", layer: "rpc", baseline: "bare-grpc-js-tcp" },
    ...["spin", "park", "adaptive"].flatMap((w) => [
      { id: `shm-ring-${w}`, layer: "rpc" as const, baseline: "uds" },
      { id: `shm-ring-${w}-channel`, layer: "channel" as const, baseline: "uds-channel" },
    ]),
  ],
  codecs: ["json", "msgpack", "protobuf", "flatbuffers", "raw"],
};

test("default matrix: every transport × codec with Tick, json+raw for the size sweep, baselines", () => {
  const cases = buildMatrix(parseBenchArgs([]), everything);
  const keys = new Set(cases.map((c) => c.key));
  assert.equal(keys.size, cases.length, "keys are unique");
  for (const t of [
    "uds",
    "tcp",
    "grpc-uds",
    "shm-ring-spin",
    "shm-ring-park",
    "shm-ring-adaptive",
  ]) {
    for (const c of everything.codecs)
      assert.ok(keys.has(`latency:${t}/${c}/tick`), `${t}/${c}/tick`);
    for (const c of ["json", "raw"]) {
      assert.ok(keys.has(`latency:${t}/${c}/64B`));
      assert.ok(keys.has(`latency:${t}/${c}/64KiB`));
      assert.ok(keys.has(`throughput:${t}/${c}/64B`));
      assert.ok(keys.has(`stream:${t}/${c}/64B`));
    }
    assert.equal(keys.has(`latency:${t}/msgpack/64B`), false);
    assert.equal(keys.has(`latency:${t}/json/1MiB`), false);
  }
  for (const b of ["bare-net-uds", "bare-net-tcp", "bare-grpc-js"])
    assert.ok(keys.has(`latency:${b}/bytes/64B`));
  assert.ok(keys.has("stream:shm-ring-spin-channel/frame/64B"));
  for (const c of cases) assert.match(c.id, /^[a-z-]+\/[a-z]+\/[A-Za-z0-9]+$/);
});

test("grpc-tcp and bare-grpc-js-tcp: only 64 B latency + throughput unless --full", () => {
  const cases = buildMatrix(parseBenchArgs([]), everything);
  const tcp = cases.filter((c) => /^(grpc-tcp|bare-grpc-js-tcp)\//.test(c.id)).map((c) => c.key);
  assert.deepEqual(tcp.sort(), [
    "latency:bare-grpc-js-tcp/bytes/64B",
    "latency:grpc-tcp/json/64B",
    "latency:grpc-tcp/raw/64B",
    "throughput:bare-grpc-js-tcp/bytes/64B",
    "throughput:grpc-tcp/json/64B",
    "throughput:grpc-tcp/raw/64B",
  ]);
  const row = cases.find((c) => c.key === "latency:grpc-tcp/json/64B");
  assert.ok(row !== undefined);
  assert.equal(comparisonKey(row, everything), "latency:bare-grpc-js-tcp/bytes/64B");
  const full = new Set(buildMatrix(parseBenchArgs(["--full"]), everything).map((c) => c.key));
  assert.ok(full.has("stream:grpc-tcp/json/64B"));
  assert.ok(full.has("latency:grpc-tcp/protobuf/tick"));
});

test("--full adds 1 KiB and 1 MiB, request and metric, and every codec in the sweep", () => {
  const keys = new Set(buildMatrix(parseBenchArgs(["--full"]), everything).map((c) => c.key));
  assert.ok(keys.has("latency:uds/msgpack/1MiB"));
  assert.ok(keys.has("latency:grpc-uds/protobuf/request"));
  assert.ok(keys.has("latency:shm-ring-park/flatbuffers/metric"));
  assert.ok(keys.has("stream:uds/raw/1MiB"));
  assert.ok(keys.has("throughput:uds/raw/64KiB"));
});

test("filters keep what matches and add the rows each kept row is compared to", () => {
  const cases = buildMatrix(parseBenchArgs(["--filter", "^shm-ring-spin/json/64B$"]), everything);
  assert.deepEqual(cases.map((c) => c.key).sort(), [
    "latency:bare-net-uds/bytes/64B",
    "latency:shm-ring-spin/json/64B",
    "latency:uds/json/64B",
    "stream:bare-net-uds/bytes/64B",
    "stream:shm-ring-spin/json/64B",
    "stream:uds/json/64B",
    "throughput:bare-net-uds/bytes/64B",
    "throughput:shm-ring-spin/json/64B",
    "throughput:uds/json/64B",
  ]);
  const bare = buildMatrix(
    parseBenchArgs(["--filter", "^latency:shm-ring-spin/json/64B$", "--no-baselines"]),
    everything,
  );
  assert.deepEqual(
    bare.map((c) => c.key),
    ["latency:shm-ring-spin/json/64B"],
  );
});

test("--transports takes prefixes; --codecs and --sizes narrow the sweep", () => {
  const cases = buildMatrix(
    parseBenchArgs([
      "--transports",
      "shm-ring",
      "--codecs",
      "raw",
      "--sizes",
      "1KiB",
      "--no-baselines",
    ]),
    everything,
  );
  assert.ok(cases.length > 0);
  for (const c of cases) {
    assert.ok(c.transport.startsWith("shm-ring-"));
    if (c.layer === "rpc") assert.equal(c.codec, "raw");
    if (c.message === "chunk") assert.equal(c.payloadBytes, 1024);
  }
  assert.ok(cases.some((c) => c.transport === "shm-ring-park-channel"));
});

test("--messages tick still gets the 64 B bare row it is compared to", () => {
  const keys = buildMatrix(
    parseBenchArgs(["--messages", "tick", "--transports", "uds"]),
    everything,
  ).map((c) => c.key);
  assert.ok(keys.includes("latency:uds/json/tick"));
  assert.ok(keys.includes("latency:bare-net-uds/bytes/64B"));
  assert.equal(keys.includes("latency:uds/json/64B"), false);
});

test("comparison keys: uds → bare net, shm-ring → uds with the same codec, tick → 64 B bare", () => {
  const byKey = new Map(buildMatrix(parseBenchArgs(["--full"]), everything).map((c) => [c.key, c]));
  const k = (key: string) => {
    const c = byKey.get(key);
    assert.ok(c, key);
    return comparisonKey(c, everything);
  };
  assert.equal(k("latency:uds/json/64KiB"), "latency:bare-net-uds/bytes/64KiB");
  assert.equal(k("latency:tcp/raw/tick"), "latency:bare-net-tcp/bytes/64B");
  assert.equal(k("throughput:grpc-uds/json/64B"), "throughput:bare-grpc-js/bytes/64B");
  assert.equal(k("latency:shm-ring-park/msgpack/tick"), "latency:uds/msgpack/tick");
  assert.equal(k("stream:shm-ring-spin-channel/frame/64B"), "stream:uds-channel/frame/64B");
  assert.equal(k("latency:bare-net-uds/bytes/64B"), undefined);
});

test("CI matrix is fixed and leaves out transports that do not exist", () => {
  const all = buildCiMatrix(everything).map((c) => c.key);
  assert.ok(all.includes("latency:shm-ring-spin/raw/64B"));
  assert.ok(all.includes("stream:uds/raw/64B"));
  assert.ok(all.includes("throughput:grpc-uds/raw/64B"));
  assert.ok(all.includes("stream:grpc-uds/raw/64B"));
  const onlyBaselines = buildCiMatrix({ transports: [], codecs: ["json"] }).map((c) => c.key);
  assert.ok(onlyBaselines.length > 0);
  for (const k of onlyBaselines) assert.match(k, /bare-/);
});

test("engine rows: memory compares to uds; bytes rows at 64 B for memory, uds and shm-ring-spin only", () => {
  const input: MatrixInput = {
    ...everything,
    transports: [{ id: "memory", layer: "rpc", baseline: "uds" }, ...everything.transports],
  };
  const keys = new Set(buildMatrix(parseBenchArgs([]), input).map((c) => c.key));
  for (const mode of ["latency", "throughput", "stream"]) {
    for (const t of ["memory", "uds", "shm-ring-spin"])
      assert.ok(keys.has(`${mode}:${t}/bytes/64B`), `${mode}:${t}/bytes/64B`);
    assert.equal(keys.has(`${mode}:tcp/bytes/64B`), false);
    assert.equal(keys.has(`${mode}:memory/bytes/64KiB`), false);
  }
  const memoryRaw = buildMatrix(parseBenchArgs(["--filter", "^throughput:memory/raw/64B$"]), input);
  // The chain of comparisons is followed: memory → uds → bare net.
  assert.deepEqual(memoryRaw.map((c) => c.key).sort(), [
    "throughput:bare-net-uds/bytes/64B",
    "throughput:memory/raw/64B",
    "throughput:uds/raw/64B",
  ]);
  const memory = memoryRaw.find((c) => c.transport === "memory");
  assert.ok(memory !== undefined);
  assert.equal(comparisonKey(memory, input), "throughput:uds/raw/64B");
  const noBytes = buildMatrix(parseBenchArgs(["--codecs", "raw"]), input);
  assert.equal(
    noBytes.some((c) => c.codec === "bytes" && c.layer === "rpc"),
    false,
  );
});

import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { describe, it } from "node:test";
import type { Durability } from "@nearwire/transfer";
import { coreLoopMs } from "../src/measure/core-speed.js";
import { escapeHtml, tableHtml } from "../src/report/html-report.js";
import { runTransferBench, type TransferReport } from "../src/transfer/transfer-bench.js";
import {
  runTransferCommand,
  TRANSFER_USAGE,
  transferMarkdownHead,
} from "../src/transfer/transfer-command.js";
import {
  GO_SEED_TRANSPORTS,
  type TransferCase,
  transferPlan,
} from "../src/transfer/transfer-plan.js";
import {
  RSS_GROWTH_LIMIT_BYTES,
  transferHtml,
  transferMarkdown,
  transferMethod,
  transferTables,
} from "../src/transfer/transfer-report.js";
import { HISTORY } from "./support/fixture-report.js";
import { found } from "./support/found.js";

const ALL = {
  transports: ["uds", "tcp", "grpc-uds", "shm-ring-spin", "shm-ring-adaptive", "shm-ring-park"],
  codecs: ["json", "msgpack", "protobuf", "flatbuffers", "raw"],
};
const MiB = 1024 * 1024;

describe("transfer plan", () => {
  it("the small profile: seed, 64 MiB rows and the baselines", () => {
    const keys = transferPlan("small", ALL).map((c) => c.key);
    assert.ok(keys.includes("transfer-seed:uds/raw/2MiBx10"));
    assert.ok(keys.includes("transfer-large:shm-ring-adaptive/raw/file-upload-64MiB"));
    assert.ok(keys.includes("transfer-baseline:cp/64MiB"));
    assert.ok(!keys.some((k) => k.startsWith("transfer-many:")));
  });

  it("default and full: 1 GiB, 10 × 100 MiB, every codec in the bulk rows", () => {
    const keys = transferPlan("full", ALL).map((c) => c.key);
    assert.ok(keys.includes("transfer-large:shm-ring-spin/raw/file-download-1GiB"));
    assert.ok(keys.includes("transfer-many:uds/raw/file-upload-10x100MiB"));
    // The RSS limit holds for every transport: each has its ten-at-once rows by default.
    const many = transferPlan("default", ALL)
      .filter((c) => c.kind === "many")
      .map((c) => c.key);
    for (const t of ["uds", "grpc-uds", "shm-ring-adaptive"])
      for (const d of ["upload", "download"])
        assert.ok(many.includes(`transfer-many:${t}/raw/file-${d}-10x100MiB`), `${t} ${d}`);
    assert.ok(keys.includes("transfer-large:uds/raw/memory-upload-1GiB-chunk1MiB"));
    const big = transferPlan("full", ALL).find((c) => c.key.endsWith("file-upload-1GiB-chunk1MiB"));
    assert.ok(big?.kind === "large");
    assert.equal(big.chunkBytes, 1024 * 1024);
    for (const codec of ALL.codecs)
      assert.ok(keys.includes(`transfer-large:uds/${codec}/memory-upload-1GiB`), codec);
    assert.ok(
      transferPlan("default", ALL).some((c) => c.key === "transfer-baseline:bare-net-uds/1GiB"),
    );
  });

  it("a filter keeps the baselines beside a file or memory row, and drops them otherwise", () => {
    const file = transferPlan("small", ALL, (c) => c.key.includes("uds/raw/file-upload"));
    assert.deepEqual(
      file.filter((c) => c.kind === "baseline").map((c) => c.key),
      [
        "transfer-baseline:cp/64MiB",
        "transfer-baseline:cp-fsync/64MiB",
        "transfer-baseline:bare-net-uds/64MiB",
        "transfer-baseline:bare-net-uds-fsync/64MiB",
        "transfer-baseline:floor-file/64MiB",
        "transfer-baseline:floor-sender/64MiB",
      ],
    );
    const many = transferPlan("default", ALL, (c) => c.kind === "many");
    assert.equal(many.filter((c) => c.kind === "baseline").length, 6);
    // A memory row's yardstick is the receiver floor on the memory root alone.
    const memory = transferPlan("default", ALL, (c) => c.key.includes("raw/memory-upload"));
    assert.deepEqual(
      memory.filter((c) => c.kind === "baseline").map((c) => c.key),
      ["transfer-baseline:floor-memory/1GiB"],
    );
    const seed = transferPlan("small", ALL, (c) => c.kind === "seed");
    assert.ok(seed.length > 0 && seed.every((c) => c.kind === "seed"));
  });

  it("the seed rows on tmpfs: uds and shm-ring-adaptive with raw, default and full only", () => {
    const tmpfs = (profile: "small" | "default" | "full") =>
      transferPlan(profile, ALL)
        .filter((c) => c.kind === "seed" && c.tmpfs === true)
        .map((c) => c.key);
    const both = [
      "transfer-seed:uds/raw/2MiBx10-tmpfs",
      "transfer-seed:shm-ring-adaptive/raw/2MiBx10-tmpfs",
    ];
    assert.deepEqual(tmpfs("default"), both);
    assert.deepEqual(tmpfs("full"), both);
    assert.deepEqual(tmpfs("small"), []);
    assert.deepEqual(
      transferPlan("default", { ...ALL, codecs: ["json"] }).filter(
        (c) => c.kind === "seed" && c.tmpfs === true,
      ),
      [],
      "no raw codec, no tmpfs rows",
    );
  });

  it("the Go net/rpc seed rows: default and full when Go was found, never in small", () => {
    const withGo = { ...ALL, transports: [...ALL.transports, ...GO_SEED_TRANSPORTS] };
    const goKeys = (profile: "small" | "default" | "full", input = withGo) =>
      transferPlan(profile, input)
        .filter((c) => c.kind === "seed" && c.transport.startsWith("go-"))
        .map((c) => c.key);
    const both = [
      "transfer-seed:go-netrpc/gob/2MiBx10",
      "transfer-seed:go-netrpc-nofsync/gob/2MiBx10",
    ];
    assert.deepEqual(goKeys("default"), both);
    assert.deepEqual(goKeys("full"), both);
    assert.deepEqual(goKeys("small"), []);
    assert.deepEqual(goKeys("default", ALL), [], "no Go found: no Go rows");
  });

  it("only transports and codecs that were found", () => {
    const cases = transferPlan("full", { transports: ["uds"], codecs: ["json"] });
    assert.ok(cases.every((c) => c.kind === "baseline" || c.transport === "uds"));
    assert.ok(cases.every((c) => c.kind === "baseline" || c.codec === "json"));
  });
});

function fixture(): TransferReport {
  const large = (key: string, where: "file" | "memory", transport: string): TransferCase => ({
    kind: "large",
    key,
    transport,
    codec: "raw",
    direction: "upload",
    where,
    bytes: 1024 * MiB,
    concurrency: 1,
  });
  const figures = (growth: number) => ({
    cpuUs: 1e6,
    rssAtMarkBytes: 100 * MiB,
    peakRssBytes: 100 * MiB + growth,
  });
  const GiB = 1024 * MiB;
  return {
    profile: "default",
    startedAt: "2026-12-01T00:00:00.000Z",
    finishedAt: "2026-12-01T00:01:00.000Z",
    pin: true,
    seedTiming: { warmupMs: 1000, durationMs: 2000 },
    fileDir: "/tmp (ext4)",
    memoryDir: "/dev/shm (tmpfs)",
    loadAverage: { start: 0.5, end: 0.7 },
    cores: 2,
    runs: [
      {
        spec: { kind: "baseline", key: "transfer-baseline:cp/1GiB", baseline: "cp", bytes: GiB },
        elapsedNs: 1e9,
        bytes: GiB,
        count: 1,
      },
      {
        spec: {
          kind: "baseline",
          key: "transfer-baseline:bare-net-uds/1GiB",
          baseline: "bare-net-uds",
          bytes: GiB,
        },
        elapsedNs: 2e9,
        bytes: GiB,
        count: 1,
      },
      {
        spec: {
          kind: "baseline",
          key: "transfer-baseline:cp-fsync/1GiB",
          baseline: "cp-fsync",
          bytes: GiB,
        },
        elapsedNs: 1.6e9,
        bytes: GiB,
        count: 1,
      },
      {
        spec: {
          kind: "baseline",
          key: "transfer-baseline:bare-net-uds-fsync/1GiB",
          baseline: "bare-net-uds-fsync",
          bytes: GiB,
        },
        elapsedNs: 2.5e9,
        bytes: GiB,
        count: 1,
      },
      {
        spec: {
          kind: "baseline",
          key: "transfer-baseline:floor-memory/1GiB",
          baseline: "floor-memory",
          bytes: GiB,
        },
        elapsedNs: 1e9,
        bytes: GiB,
        count: 1,
        server: { ...figures(0), cpuUs: 1.25e6, mainThreadCpuUs: 0.8e6 },
      },
      {
        spec: {
          kind: "baseline",
          key: "transfer-baseline:floor-file/1GiB",
          baseline: "floor-file",
          bytes: GiB,
        },
        elapsedNs: 1.6e9,
        bytes: GiB,
        count: 1,
        server: { ...figures(0), cpuUs: 0.9e6, mainThreadCpuUs: 0.7e6 },
      },
      {
        spec: {
          kind: "baseline",
          key: "transfer-baseline:floor-sender/1GiB",
          baseline: "floor-sender",
          bytes: GiB,
        },
        elapsedNs: 1.2e9,
        bytes: GiB,
        count: 1,
        client: { ...figures(0), cpuUs: 1.1e6, mainThreadCpuUs: 1e6 },
      },
      {
        spec: large("transfer-large:uds/raw/file-upload-1GiB", "file", "uds"),
        elapsedNs: 2e9,
        bytes: GiB,
        count: 1,
        client: figures(10 * MiB),
        server: { ...figures(RSS_GROWTH_LIMIT_BYTES + MiB), mainThreadCpuUs: 0.4e6 },
      },
      {
        spec: large(
          "transfer-large:shm-ring-spin/raw/memory-upload-1GiB",
          "memory",
          "shm-ring-spin",
        ),
        elapsedNs: 0.25e9,
        bytes: GiB,
        count: 1,
        client: figures(0),
        server: figures(0),
      },
      {
        spec: {
          kind: "seed",
          key: "transfer-seed:uds/raw/2MiBx10",
          transport: "uds",
          codec: "raw",
          clients: 10,
          fileBytes: 2 * MiB,
        },
        elapsedNs: 2e9,
        count: 200,
        bytes: 400 * MiB,
        meanNs: 100e6,
        p99Ns: 150e6,
        client: figures(0),
        server: figures(0),
      },
    ],
  };
}

describe("transfer report", () => {
  it("the seed note gives the fastest nearwire row over Go net/rpc, measured in the same run", () => {
    const report = fixture();
    const seed = found(
      report.runs.find((r) => r.spec.kind === "seed"),
      "the fixture's seed run",
    );
    const goRun = (transport: string, count: number) => ({
      ...seed,
      spec: {
        ...seed.spec,
        key: `transfer-seed:${transport}/gob/2MiBx10`,
        transport,
        codec: "gob",
      },
      count,
    });
    const note = () =>
      found(
        transferTables(report).find((t) => t.title.includes("published scenario")),
        "seed table",
      ).note;
    assert.doesNotMatch(note(), /go-netrpc/, "no Go row, no ratio");
    // uds: 200 uploads in 2 s; go-netrpc 80 (the nofsync row's 150 is not the yardstick).
    report.runs.push(goRun("go-netrpc", 80) as never, goRun("go-netrpc-nofsync", 150) as never);
    assert.match(
      note(),
      /The fastest nearwire row on the same disk, uds\/raw\/2MiBx10, does 2\.50× the uploads\/s of go-netrpc/,
    );
    // A faster row on tmpfs (no fsync cost) is not compared with Go on the disk.
    report.runs.push({
      ...seed,
      spec: { ...seed.spec, key: "transfer-seed:uds/raw/2MiBx10-tmpfs", tmpfs: true },
      count: 400,
    } as never);
    assert.match(note(), /same disk, uds\/raw\/2MiBx10, does 2\.50×/);
  });

  it("targets: CPU per GiB, ratios to cp and the pipeline with fsync, GB/s, floor, seed, RSS", () => {
    const tables = transferTables(fixture());
    const targets = tables.find((t) => t.title.includes("targets"));
    assert.ok(targets);
    const row = (prefix: string) =>
      found(
        targets.rows.find((r) => (r[0] as string).startsWith(prefix)),
        prefix,
      ).slice(1);
    // uds upload: 1 GiB in 2 s; cp + fsync 1.6 s, the bare pipeline + fsync 2.5 s.
    assert.deepEqual(row("uds/raw/file-upload-1GiB ≥ 0.8× cp + fsync"), ["0.80×", "met"]);
    assert.deepEqual(row("uds/raw/file-upload-1GiB ≥ 0.75× bare pipeline + fsync"), [
      "1.25×",
      "met",
    ]);
    // CPU: 1 s per GiB per side (uds: ≤ 2 s); the server's JS thread beside it.
    assert.deepEqual(row("uds/raw/file-upload-1GiB: server CPU ≤ 2 s per GiB"), [
      "1.00 s (JS thread 0.40 s)",
      "met",
    ]);
    assert.deepEqual(row("shm-ring-spin/raw/memory-upload-1GiB ≥ 0.8 GB/s"), ["4.29 GB/s", "met"]);
    // The receiver floor: 1.25 s of CPU per GiB allows at most 1.074 ÷ 1.25 = 0.86 GB/s.
    assert.deepEqual(row("floor-memory/1GiB: a receiving server's own work"), [
      "1.25 s (JS thread 0.80 s; 0.86 GB/s)",
      "yardstick",
    ]);
    // The sender floor is the client's: 1.1 s of CPU per GiB, at most 1.074 ÷ 1.1 = 0.98 GB/s.
    assert.deepEqual(row("floor-sender/1GiB: an uploading client's own work"), [
      "1.10 s (JS thread 1.00 s; 0.98 GB/s)",
      "yardstick",
    ]);
    // The floors took 1.2 s (sender) and 1.6 s (receiver, disk waits included) for 1 GiB: the
    // slower moves as much as cp + fsync (1.6 s), so a file upload may reach 1.00× of it.
    assert.deepEqual(row("file uploads: the most of cp + fsync the floors allow"), [
      "1.00×",
      "yardstick",
    ]);
    // Seed: 200 uploads in 2 s, 1 s of server CPU: 100/s, 5 ms each.
    assert.deepEqual(row("uds/raw/2MiBx10 ≥ 150 uploads/s"), ["100", "NOT met"]);
    assert.deepEqual(row("uds/raw/2MiBx10: server CPU ≤ 4 ms"), ["5.00 ms", "NOT met"]);
    // The server grew by 33 MiB.
    assert.deepEqual(row("uds/raw/file-upload-1GiB: RSS growth ≤ 32 MiB"), ["33 MiB", "NOT met"]);
    const large = tables.find((t) => t.title.includes("large files"));
    assert.ok(large);
    const uds = large.rows.find((r) => r[0] === "uds/raw/file-upload-1GiB");
    assert.ok(uds);
    assert.equal(uds[2], "0.50×"); // ÷ cp
    assert.equal(uds.at(-1), "NO");
    // Process CPU, then the JS thread alone (the fixture's server reports it, its client not).
    const col = (name: string) => large.headers.indexOf(name);
    assert.equal(uds[col("client CPU s")], "1.00");
    assert.equal(uds[col("server CPU s")], "1.00");
    assert.equal(uds[col("client JS thread s")], "—");
    assert.equal(uds[col("server JS thread s")], "0.40");
    // The sender floor has the client's columns only.
    const sender = found(
      large.rows.find((r) => r[0] === "floor-sender/1GiB"),
      "the sender floor's row",
    );
    assert.equal(sender[col("client CPU s")], "1.10");
    assert.equal(sender[col("client JS thread s")], "1.00");
    assert.equal(sender[col("server CPU s")], "—");
  });

  it("another durability: said in the method and notes; its fsync targets shown, not judged", () => {
    const full = transferTables(fixture());
    for (const durable of ["commit", "none"] as const) {
      const report = { ...fixture(), durable };
      const tables = transferTables(report);
      const targets = found(
        tables.find((t) => t.title.includes("targets")),
        "targets",
      );
      const row = (prefix: string) =>
        found(
          targets.rows.find((r) => (r[0] as string).startsWith(prefix)),
          prefix,
        );
      // The ratio is still there (0.80×); the verdict is not given.
      assert.deepEqual(row("uds/raw/file-upload-1GiB ≥ 0.8× cp + fsync"), [
        `uds/raw/file-upload-1GiB ≥ 0.8× cp + fsync (default durability), not judged: this run had durable ${durable}`,
        "0.80×",
        "—",
      ]);
      // Targets that do not depend on durability are judged as in a default run.
      const judged = (t: typeof targets) =>
        t.rows.filter((r) => !/\+ fsync|uploads\/s|go-netrpc/.test(r[0] as string));
      assert.deepEqual(
        judged(targets),
        judged(
          found(
            full.find((t) => t.title.includes("targets")),
            "",
          ),
        ),
      );
      // The seed's uploads/s on the disk is a target with fsync: judged under commit (the commit
      // fsyncs), not under none.
      // The bare pipeline fsyncs at the end, as a commit does: like for like unless none.
      assert.equal(
        row("uds/raw/file-upload-1GiB ≥ 0.75× bare pipeline + fsync")[2],
        durable === "none" ? "—" : "met",
      );
      const seed = row("uds/raw/2MiBx10 ≥ 150 uploads/s");
      assert.equal(seed[2], durable === "none" ? "—" : "NOT met");
      assert.match(transferMethod(report), new RegExp(`durable: "${durable}"`));
      const large = found(
        tables.find((t) => t.title.includes("large files")),
        "large",
      );
      assert.match(large.note, new RegExp(`durable: ${durable}: no f`));
      assert.doesNotMatch(large.note, /commits it \(fdatasync every 8 MiB/);
      assert.equal(
        /the nearwire rows of this run did not fsync/.test(large.note),
        durable === "none",
      );
    }
    assert.doesNotMatch(transferMethod(fixture()), /durable/, "the default is not mentioned");
  });

  it("the cores' speed at both ends, and a core more than 10 % slower than the other named", () => {
    const report = fixture();
    assert.doesNotMatch(transferMethod(report), /Core speed/, "not measured: not mentioned");
    report.coreLoopMs = { start: [100, 137], end: [101, 104] };
    const text = transferMethod(report);
    assert.match(
      text,
      /took 100 ms on core 0, 137 ms on core 1 before the first case and 101 ms on core 0, 104 ms on core 1 after the last\./,
    );
    assert.match(text, /At the start, core 1 ran it 37 % slower than core 0/);
    assert.doesNotMatch(text, /At the end/, "3 % apart is within the 10 %");
    report.coreLoopMs = { start: [100, 101], end: [150, 100] };
    assert.match(transferMethod(report), /At the end, core 0 ran it 50 % slower than core 1/);
    assert.doesNotMatch(transferMethod(report), /At the start/);
  });

  it("the Markdown file's head: the command, the machine, and the environment when one was set", () => {
    const machine = {
      node: "v20.0.0",
      v8: "11",
      cpuModel: "Test CPU",
      cores: 2,
      kernel: "6.0",
      platform: "linux",
      arch: "x64",
      totalMemBytes: 4 * 1024 ** 3,
      tasksetAvailable: true,
    };
    const head = transferMarkdownHead(["transfer", "--small"], machine);
    assert.match(
      head,
      /^# nearwire-bench transfer\n\nCommand `nearwire-bench transfer --small`; Test CPU ×2, Node\.js v20\.0\.0, linux 6\.0\.$/,
    );
    assert.match(
      transferMarkdownHead(["transfer"], { ...machine, env: ["UV_USE_IO_URING=1"] }),
      /linux 6\.0; environment `UV_USE_IO_URING=1`\.$/,
    );
  });

  it("Markdown and HTML carry the scenario's rows beside the published Go figures", () => {
    const md = transferMarkdown(fixture());
    assert.doesNotMatch(md, HISTORY);
    assert.doesNotMatch(TRANSFER_USAGE, HISTORY);
    assert.match(md, /## Transfer \(@nearwire\/transfer\)/);
    assert.match(md, /\| uds\/raw\/2MiBx10 \| 100 \| 100 ms \| 150 ms \|/);
    assert.match(md, /4,156/);
    const html = transferHtml(
      fixture(),
      (t, id) => tableHtml(t, id, { sortable: true, filter: false }),
      escapeHtml,
    );
    assert.match(html, /<h2 id="transfer">/);
    assert.match(html, /1,287/);
  });
});

describe("transfer runs", () => {
  it("one small memory-to-memory upload over uds, and nothing left in the temp dirs", async () => {
    const mine = () =>
      [...readdirSync(tmpdir()), ...readdirSync("/dev/shm").map((n) => `shm:${n}`)].filter((n) =>
        n.includes("nearwire-bench-transfer-"),
      );
    const before = mine();
    const spec: TransferCase = {
      kind: "large",
      key: "transfer-large:uds/raw/memory-upload-8MiB",
      transport: "uds",
      codec: "raw",
      direction: "upload",
      where: "memory",
      bytes: 8 * MiB,
      concurrency: 1,
    };
    const lines: string[] = [];
    const report = await runTransferBench([spec], {
      profile: "small",
      pin: false,
      out: (l) => lines.push(l),
      durable: "commit",
    });
    assert.equal(report.durable, "commit");
    const run = report.runs[0];
    assert.ok(run);
    assert.equal(run.error, undefined);
    assert.equal(run.bytes, 8 * MiB);
    assert.ok((run.elapsedNs ?? 0) > 0);
    assert.ok(run.server);
    assert.ok(run.server.peakRssBytes > 0);
    assert.match(lines[0] ?? "", /memory-upload-8MiB .* GB\/s/);
    assert.deepEqual(mine(), before);
  });

  it("the floors run as processes: the receiver's on the server's side, the sender's on the client's", async () => {
    const floor = (baseline: "floor-file" | "floor-sender"): TransferCase => ({
      kind: "baseline",
      key: `transfer-baseline:${baseline}/8MiB`,
      baseline,
      bytes: 8 * MiB,
    });
    const report = await runTransferBench([floor("floor-file"), floor("floor-sender")], {
      profile: "small",
      pin: false,
      out: () => {},
    });
    const [receiver, sender] = report.runs;
    assert.ok(receiver && sender);
    for (const run of [receiver, sender]) {
      assert.equal(run.error, undefined);
      assert.equal(run.bytes, 8 * MiB);
      assert.ok((run.elapsedNs ?? 0) > 0);
    }
    assert.ok((receiver.server?.cpuUs ?? 0) > 0);
    assert.equal(receiver.client, undefined);
    assert.ok((sender.client?.cpuUs ?? 0) > 0);
    assert.equal(sender.server, undefined);
  });

  it("the durability reaches the server: one it refuses fails the row with its error", async () => {
    const spec: TransferCase = {
      kind: "large",
      key: "transfer-large:uds/raw/memory-upload-1MiB",
      transport: "uds",
      codec: "raw",
      direction: "upload",
      where: "memory",
      bytes: MiB,
      concurrency: 1,
    };
    const report = await runTransferBench([spec], {
      profile: "small",
      pin: false,
      out: () => {},
      durable: "weekly" as Durability,
    });
    assert.match(report.runs[0]?.error ?? "", /durable "weekly" is not one of full, commit, none/);
  });

  it("the core-speed loop runs pinned on each core and times it", () => {
    const cores = Math.min(2, availableParallelism());
    const ms = coreLoopMs(cores);
    assert.ok(ms !== undefined, "taskset and the loop ran");
    assert.equal(ms.length, cores);
    // 2·10^8 additions: far more than 1 ms and far less than 30 s on any machine this runs on.
    for (const m of ms) assert.ok(m > 1 && m < 30_000, `loop ${m} ms`);
  });

  it("a bad argument of the subcommand is a usage error (exit 2)", async () => {
    const write = process.stderr.write;
    let err = "";
    process.stderr.write = ((s: string) => {
      err += s;
      return true;
    }) as typeof process.stderr.write;
    try {
      assert.equal(await runTransferCommand(["--small", "--full"]), 2);
      assert.equal(await runTransferCommand(["--filter", "("]), 2);
      assert.equal(await runTransferCommand(["--bogus"]), 2);
      assert.equal(await runTransferCommand(["--durable", "weekly"]), 2);
    } finally {
      process.stderr.write = write;
    }
    assert.match(err, /--small and --full together/);
    assert.match(err, /--durable weekly: not one of full, commit, none/);
  });
});

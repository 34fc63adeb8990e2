import { fmtBytes, markdownTable } from "./format.js";
import { REFERENCE_FIGURES } from "./reference.js";
import type { BenchReport } from "./summary.js";
import { allTables } from "./tables.js";

/**
 * The Markdown report: what was measured, how, on what machine, every table with its ratios,
 * the spread over repeats, what was not available, and the labelled reference figures.
 * `chartFiles` are linked relative to the report (pass names of SVGs written beside it).
 */
export function renderMarkdown(report: BenchReport, chartFiles: readonly string[] = []): string {
  const m = report.machine;
  const s = report.settings;
  const out: string[] = [];
  out.push(
    "# nearwire-bench report",
    "",
    `Run ${report.startedAt} → ${report.finishedAt}, command \`${["nearwire-bench", ...report.command].join(" ")}\` (profile: ${s.profile}).`,
    "",
    "## Machine",
    "",
    markdownTable(
      ["", "value"],
      [
        ["CPU", m.cpuModel],
        ["cores", String(m.cores)],
        ["memory", fmtBytes(m.totalMemBytes)],
        ["kernel", `${m.platform} ${m.kernel} (${m.arch})`],
        ["Node.js", `${m.node} (V8 ${m.v8})`],
        ["pinning", s.pin ? "server on core 1, client on core 0 (taskset)" : "off"],
        ["seed", String(s.seed)],
      ],
    ),
    "",
    "## How it was measured",
    "",
    `- Each transport case runs its server and its client in two fresh Node processes${s.pin ? " pinned to different cores" : ""}, spawned by the bench for that case only (no shared JIT state between cases). Warm-up ${s.warmupMs} ms of the same traffic, then a ${s.durationMs} ms window; ${s.repeat} run(s) per case, interleaved over the matrix, and the tables show the median over runs.`,
    "- **Latency**: one call in flight, back to back; every call in the window is timed (`process.hrtime`) and recorded in an HDR histogram (3 significant digits, full histogram in the JSON). Nothing is dropped.",
    "- **Throughput**: 64 calls in flight; msgs/s = completed calls ÷ window (the window ends when the last call returns). **Streaming**: one-way, server → client, in repeated streams of a length calibrated during warm-up.",
    "- **CPU**: user + system time of each process over the window (`process.cpuUsage()` deltas) divided by messages; the server's window also spans two IPC turns around the client's.",
    "- **RPC rows** echo a decoded message through a nearwire service (encode + decode on both sides); `tick`/`request`/`metric` are the benchmark messages, sizes are a Chunk with that many data bytes. **Channel rows** (`*-channel/frame/…`) echo raw frames of application type 0x80. **Baselines** are hand-written in the bench: `bare-net-uds`/`bare-net-tcp` = `node:net` with a u32 BE length prefix (no CRC, no RPC), `bare-grpc-js` = `@grpc/grpc-js` unary with a bytes passthrough serializer over a Unix socket.",
    "- **Ratios** compare rows of this run only: uds → bare-net-uds, tcp → bare-net-tcp, grpc-uds → bare-grpc-js, shm-ring → uds (same codec), channel rows → bare-net-uds / uds-channel. Tick/request/metric rows compare to the 64 B bare row.",
    "- **Codecs**: tinybench in one process per codec; each sample is a batch of calls (≥ ~20 µs) and results are stored in a module-level sink so no call can be optimised away. FlatBuffers decode is lazy (fields are read in place when accessed), so its decode figure is the cost of getting the value, not of reading every field.",
    "",
  );
  if (!report.messagesFromPackage) {
    out.push(
      "> **Note:** `@nearwire/bench-messages` was not available; JSON stand-in messages were used and codec rows other than json are absent.",
      "",
    );
  }
  const missing = report.availability.filter((a) => a.status !== "ok");
  out.push(
    "## What ran",
    "",
    `Transports: ${report.found.transports.map((t) => `\`${t.id}\``).join(", ") || "none"} + baselines \`bare-net-uds\`, \`bare-net-tcp\`, \`bare-grpc-js\`. Codecs: ${report.found.codecs.map((c) => `\`${c}\``).join(", ")}.`,
    "",
  );
  if (missing.length > 0) {
    out.push(
      "Not measured:",
      "",
      markdownTable(
        ["package", "status", "detail"],
        missing.map((a) => [a.name, a.status, a.detail ?? ""]),
      ),
      "",
    );
  }
  const failed = report.summaries.filter((x) => x.error !== undefined);
  if (failed.length > 0) {
    out.push(
      "Failed cases:",
      "",
      markdownTable(
        ["case", "error"],
        failed.map((f) => [f.spec.key, (f.error ?? "").slice(0, 200)]),
      ),
      "",
    );
  }
  for (const t of allTables(report.codecs, report.summaries)) {
    out.push(`## ${t.title}`, "", t.note, "", markdownTable(t.headers, t.rows), "");
  }
  if (chartFiles.length > 0) {
    out.push("## Charts", "");
    for (const f of chartFiles) out.push(`![${f}](${f})`, "");
  }
  out.push(
    "## Reference (other hardware, Go)",
    "",
    "Published figures quoted in DESIGN.md. Other machines and another language: for orientation only, never compared to the rows above.",
    "",
    markdownTable(
      ["reference", "p50", "p99", "rate", "setting"],
      REFERENCE_FIGURES.map((r) => [r.what, r.p50, r.p99, r.rate, r.setting]),
    ),
    "",
  );
  return out.join("\n");
}

import { fmtBytes } from "./format.js";
import type { BenchReport } from "./summary.js";

/** What a run was measured on, as label → value rows (Markdown and HTML reports). */
export function machineRows(report: BenchReport): [string, string][] {
  const m = report.machine;
  const s = report.settings;
  return [
    ["CPU", m.cpuModel],
    ["cores", String(m.cores)],
    ["memory", fmtBytes(m.totalMemBytes)],
    ["kernel", `${m.platform} ${m.kernel} (${m.arch})`],
    ["Node.js", `${m.node} (V8 ${m.v8})`],
    ["pinning", s.pin ? "server on core 1, client on core 0 (taskset)" : "off"],
    ["seed", String(s.seed)],
    ...(m.env === undefined ? [] : [["environment", m.env.join(" ")] as [string, string]]),
  ];
}

/**
 * How a run measured, as Markdown bullets (`**bold**` and `` `code` `` only), shared by the
 * Markdown and the HTML report so both say the same thing.
 */
export function methodBullets(report: BenchReport): string[] {
  const s = report.settings;
  return [
    `Each transport case runs its server and its client in two fresh Node processes (Go processes for the go-* rows)${s.pin ? " pinned to different cores" : ""}, spawned by the bench for that case only (no shared JIT state between cases). Warm-up with the same traffic until the case is steady (at least ${s.warmupMs} ms and 5000 calls, then until three successive 100 ms windows agree within 10 %, capped at max(10 × that, 5 s); each run's warm-up is in the JSON), then a ${s.durationMs} ms window; ${s.repeat} run(s) per case, interleaved over the matrix, and the tables show the median over runs.`,
    "**Latency**: one call in flight, back to back; every call in the window is timed (`performance.now()`, the monotonic clock) and recorded in an HDR histogram (3 significant digits, full histogram in the JSON). Nothing is dropped.",
    "**Throughput**: 64 calls in flight; msgs/s = completed calls ÷ window (the window ends when the last call returns). **Streaming**: one-way, server → client, in repeated streams of a length calibrated during warm-up.",
    "**CPU**: user + system time of each process over the window (`process.cpuUsage()` deltas) divided by messages; the server's window also spans two IPC turns around the client's.",
    "**RPC rows** echo a decoded message through a nearwire service (encode + decode on both sides); `tick`/`request`/`metric` are the benchmark messages, sizes are a Chunk with that many data bytes. **Engine rows** (`memory`) run the same service over an in-memory transport in one process (the RPC engine without a kernel); their client CPU holds both sides. **Channel rows** (`*-channel/frame/…`) echo raw frames of application type 0x80. **Baselines** are hand-written in the bench: `bare-net-uds`/`bare-net-tcp` = `node:net` with a u32 BE length prefix (no CRC, no RPC), `bare-grpc-js` / `bare-grpc-js-tcp` = `@grpc/grpc-js` unary with a bytes passthrough serializer over a Unix socket / TCP loopback. **Go rows** (when `go` is installed) are the yardstick in another language, built from `apps/bench/go` and run in the same places: `go-grpc-uds` / `go-grpc-tcp` = grpc-go unary with a bytes codec over a Unix socket / TCP loopback, `go-uds` = a Go `net.UnixConn` echo with a u32 BE length prefix, one write per frame; each call timed in Go, the samples put in the same HDR histogram; their heap/msg is what the Go client allocated per call (`runtime.MemStats.TotalAlloc`). **Worker rows** (`worker-*`) run the server in a worker thread of the client process over `@nearwire/worker` (rings in a SharedArrayBuffer; the client process is pinned to both cores, its CPU column holds both threads) and compare to `bare-postmessage` = the worker echoing with `MessagePort.postMessage` (structured clone, the only channel Node.js gives threads); park rows also measure the idle CPU of a parked connection (the Worker threads table). **heap/msg** = bytes the client process allocated on the V8 JS heap per message over the window (used heap at the end − at the start + what every GC in the window freed, from `v8.GCProfiler`; ArrayBuffer/Buffer backing stores are outside the JS heap and not counted).",
    "**Ratios** compare rows of this run only: memory → uds (same codec), uds → bare-net-uds, tcp → bare-net-tcp, grpc-uds → bare-grpc-js, grpc-tcp → bare-grpc-js-tcp, shm-ring → uds (same codec), worker → bare-postmessage, channel rows → bare-net-uds / uds-channel. Tick/request/metric rows compare to the 64 B bare row.",
    "**Codecs**: tinybench in one process per codec; each sample is a batch of calls (≥ ~20 µs) and results are stored in a module-level sink so no call can be optimised away. FlatBuffers decode is lazy (fields are read in place when accessed), so its decode figure is the cost of getting the value, not of reading every field.",
  ];
}

/**
 * What actually ran: the transports (baselines included) and codecs of the cases that have at
 * least one run, plus the codecs of the codec benchmarks, in first-seen order.
 */
export function whatRan(report: BenchReport): { transports: string[]; codecs: string[] } {
  const transports = new Set<string>();
  const codecs = new Set<string>();
  for (const c of report.cases) {
    if (c.runs.length === 0) continue;
    transports.add(c.spec.transport);
    codecs.add(c.spec.codec);
  }
  for (const c of report.codecs) codecs.add(c.codec);
  return { transports: [...transports], codecs: [...codecs] };
}

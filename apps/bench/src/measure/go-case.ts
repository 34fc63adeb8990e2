import { readFileSync } from "node:fs";
import type { CaseSpec } from "./case-spec.js";
import { summarise } from "./latency.js";
import type { RunResult } from "./run-result.js";

/**
 * The Go yardstick's rows: which program a `go-*` transport runs, its command lines under the
 * orchestrator (`-control`: the worker messages as JSON lines on stdin/stdout, see
 * `go/control.go`), and its result turned into a {@link RunResult}. The latency summary is
 * rebuilt here from every sample the Go client wrote, with the same HDR histogram as the Node.js
 * rows, so percentiles are computed one way for every row.
 */

/**
 * The Go baselines: grpc-go 1.33 unary over a Unix socket and over TCP loopback (a bytes codec,
 * no protoc), and a plain `net.UnixConn` echo with a u32 BE length prefix, one write per frame.
 */
export const GO_TRANSPORTS = ["go-grpc-uds", "go-grpc-tcp", "go-uds"] as const;

/** True for a Go yardstick transport id. */
export function isGoTransport(transport: string): boolean {
  return (GO_TRANSPORTS as readonly string[]).includes(transport);
}

/** The subcommand prefix of a Go transport: `grpc` (grpc-server/-client) or `uds`. */
function program(transport: string): "grpc" | "uds" {
  return transport.startsWith("go-grpc-") ? "grpc" : "uds";
}

/** The server's command line: `<binary> grpc-server -listen <address> -control`. */
export function goServerArgv(binary: string, spec: CaseSpec, address: string): string[] {
  return [binary, `${program(spec.transport)}-server`, "-listen", address, "-control"];
}

/** What the client measures and where it writes its samples. */
export interface GoClientRun {
  durationMs: number;
  warmupMs: number;
  /** File for every round trip of the window (float64 ns, little-endian). */
  samplesFile: string;
}

/** The client's command line for `spec` against the server at `address`. */
export function goClientArgv(
  binary: string,
  spec: CaseSpec,
  address: string,
  run: GoClientRun,
): string[] {
  if (spec.mode === "stream") throw new Error(`${spec.key}: the Go rows measure no streams`);
  return [
    binary,
    `${program(spec.transport)}-client`,
    "-target",
    address,
    "-size",
    String(spec.payloadBytes),
    "-inflight",
    String(spec.inFlight),
    "-duration",
    `${run.durationMs}ms`,
    "-warmup",
    `${run.warmupMs}ms`,
    "-samples",
    run.samplesFile,
    "-control",
  ];
}

/** The client's side of a run as the Go program reports it (see `runResult` in go/drive.go). */
export type GoClientResult = Omit<RunResult, "server" | "serverCpuUsPerMsg" | "latency">;

/** The client's result with the latency summary rebuilt from the samples file. */
export function goRunResult(
  raw: GoClientResult,
  samplesFile: string,
): Omit<RunResult, "server" | "serverCpuUsPerMsg"> {
  const bytes = readFileSync(samplesFile);
  const samples = new Float64Array(
    bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
  );
  if (samples.length !== raw.count)
    throw new Error(`go client: ${samples.length} samples for ${raw.count} calls`);
  const result: Omit<RunResult, "server" | "serverCpuUsPerMsg"> = {
    count: raw.count,
    elapsedNs: raw.elapsedNs,
    msgsPerSec: raw.msgsPerSec,
    mbPerSec: raw.mbPerSec,
    wireBytes: raw.wireBytes,
    client: raw.client,
    clientCpuUsPerMsg: raw.clientCpuUsPerMsg,
    latency: summarise(samples),
  };
  if (raw.clientHeapBytesPerMsg !== undefined)
    result.clientHeapBytesPerMsg = raw.clientHeapBytesPerMsg;
  if (raw.warmup !== undefined) result.warmup = raw.warmup;
  return result;
}

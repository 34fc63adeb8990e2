/**
 * Published figures of Go programs on other hardware (the reference the bench is read against).
 * They appear in the report in a table of their own and are never compared to measured rows.
 */
export const REFERENCE_FIGURES: readonly {
  /** Stable name of the figure (`uds`, `grpc-uds`, `shm-ring`, `spsc`, …). */
  id: string;
  what: string;
  p50: string;
  p99: string;
  rate: string;
  setting: string;
}[] = [
  {
    id: "uds",
    what: "UDS",
    p50: "18 µs",
    p99: "124 µs",
    rate: "1.32 M QPS",
    setting: "64-core server, 256 B payloads",
  },
  {
    id: "grpc-uds",
    what: "gRPC over UDS",
    p50: "47 µs",
    p99: "389 µs",
    rate: "0.89 M QPS",
    setting: "64-core server, 256 B payloads",
  },
  {
    id: "shm-ring",
    what: "shared-memory ring",
    p50: "3.2 µs",
    p99: "19 µs",
    rate: "2.15 M QPS",
    setting: "64-core server, 256 B payloads",
  },
  {
    id: "spsc",
    what: "tuned SPSC shm ring",
    p50: "1.83 µs (mean)",
    p99: "2.98 µs",
    rate: "4.91 M msgs/s",
    setting: "64 B messages",
  },
  {
    id: "grpc-uds-vs-tcp",
    what: "gRPC unary, UDS vs TCP",
    p50: "102 µs vs 127 µs per call",
    p99: "—",
    rate: "—",
    setting: "desktop CPU",
  },
  {
    id: "tcp-vs-uds",
    what: "loopback TCP vs UDS round trip",
    p50: "1.5–2× UDS",
    p99: "—",
    rate: "—",
    setting: "small messages, typical",
  },
];

/**
 * `@nearwire/shm-ring/ring`: the shared-memory ring of PROTOCOL.md §6 — layout constants,
 * header read/write/check, the SPSC `RingReader` / `RingWriter` — re-exported from
 * `@nearwire/ring`, for tests and tools that read a segment. Not needed to serve or call.
 */
export * from "@nearwire/ring";

import type { PartialUpload } from "../../src/server/partial-upload.js";

/** `partial.write(data, done)` as a promise, for tests that await each write. */
export function writePartial(partial: PartialUpload, data: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) =>
    partial.write(data, (err) => (err == null ? resolve() : reject(err))),
  );
}

/**
 * protobufjs is a peer dependency: the user's message classes and the codec must share one
 * protobufjs install, since generated `decode` checks `reader instanceof Reader` (a second copy
 * fails every decode with protobufjs's "illegal buffer"). Both checks below turn that into a
 * FAILED_PRECONDITION `version-mismatch` that says what to install.
 */
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { Code, NearwireError } from "@nearwire/core";

/** The protobufjs versions this codec is tested with (its `peerDependencies` range). */
export const PROTOBUFJS_RANGE = "^8.8.1";

const FIX = `install one protobufjs ${PROTOBUFJS_RANGE} next to @nearwire/codec-protobuf (its peer dependency): npm install protobufjs@${PROTOBUFJS_RANGE}`;

/** Whether `version` (`major.minor.patch`, a pre-release tag ignored) is in {@link PROTOBUFJS_RANGE}. */
export function inProtobufjsRange(version: string): boolean {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (m === null) return false;
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return major === 8 && (minor > 8 || (minor === 8 && patch >= 1));
}

/** Throws FAILED_PRECONDITION `version-mismatch` unless `version` is in the supported range. */
export function checkProtobufjsVersion(version: string, where = "protobufjs"): void {
  if (!inProtobufjsRange(version))
    throw new NearwireError(
      Code.FailedPrecondition,
      `protobufjs ${version} (${where}) is not supported by @nearwire/codec-protobuf: ${FIX}`,
      { reason: "version-mismatch" },
    );
}

let installed: { version: string; dir: string } | undefined;

/** The version and directory of the protobufjs this package resolves (read once). */
export function installedProtobufjs(): { version: string; dir: string } {
  if (installed === undefined) {
    const require = createRequire(import.meta.url);
    const path = require.resolve("protobufjs/package.json");
    installed = { version: (require(path) as { version: string }).version, dir: dirname(path) };
  }
  return installed;
}

/** The error for a message type whose `decode` belongs to another protobufjs install. */
export function foreignProtobufjs(typeName: string): NearwireError {
  const own = installedProtobufjs();
  return new NearwireError(
    Code.FailedPrecondition,
    `protobuf message type "${typeName}" comes from another protobufjs install than the one ` +
      `@nearwire/codec-protobuf uses (protobufjs ${own.version} in ${own.dir}): ${FIX}`,
    { reason: "version-mismatch" },
  );
}

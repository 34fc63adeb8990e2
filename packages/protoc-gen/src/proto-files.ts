/** generateFromProtoFiles: `.proto` files read by protobufjs, one generated module each. */
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { loadProtoFiles } from "@nearwire/codec-protobuf";
import type { GeneratedFile } from "./code-generator.js";
import { generateTs, outputName } from "./generate-ts.js";
import { targetOfFile } from "./schema-closure.js";

/** Options of {@link generateFromProtoFiles}. */
export interface GenerateFromProtoOptions {
  /**
   * Directories searched, in order, for imports (protoc's `-I`). A file's name in the output
   * (and in its header) is its path relative to the first of them that holds it, else its own
   * file name: `-I proto proto/acme/v1/greeter.proto` writes `acme/v1/greeter_nearwire.ts`.
   * Default: none.
   */
  readonly includeDirs?: readonly string[];
}

/** `file`'s name relative to the first include directory holding it, `/`-separated. */
function protoName(file: string, includeDirs: readonly string[]): string {
  for (const dir of includeDirs) {
    const rel = relative(resolve(dir), file);
    if (rel !== "" && !rel.startsWith("..") && !isAbsolute(rel)) return rel.split(sep).join("/");
  }
  return relative(dirname(file), file);
}

/**
 * One generated module per `.proto` file (see `generateTs`), each from a protobufjs root of its
 * own holding the file and its imports (`google/protobuf/*.proto` from protobufjs's bundled
 * copies). Throws INVALID_ARGUMENT when a file cannot be read, parsed or resolved.
 */
export function generateFromProtoFiles(
  files: readonly string[],
  options: GenerateFromProtoOptions = {},
): GeneratedFile[] {
  const includeDirs = options.includeDirs ?? [];
  return files.map((file) => {
    const path = resolve(file);
    const fileName = protoName(path, includeDirs);
    const root = loadProtoFiles(path, { includeDirs });
    return {
      name: outputName(fileName),
      content: generateTs(root, targetOfFile(root, path, fileName)),
    };
  });
}

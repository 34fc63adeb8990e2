import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));

/**
 * The packages `file` loads at import, following its relative static imports: `import type`
 * is erased and a dynamic `import()` loads later, so neither counts.
 */
function staticPackages(file: string, seen = new Set<string>()): Set<string> {
  const found = new Set<string>();
  if (seen.has(file)) return found;
  seen.add(file);
  const text = readFileSync(file, "utf8");
  const imports = /^(?:import|export)\s+(?!type\s)(?:[^;]*?\sfrom\s+)?"([^"]+)"/gms;
  for (const m of text.matchAll(imports)) {
    const spec = m[1] as string;
    if (!spec.startsWith(".")) found.add(spec);
    else
      for (const p of staticPackages(join(dirname(file), spec.replace(/\.js$/, ".ts")), seen))
        found.add(p);
  }
  return found;
}

describe("package layout", () => {
  it("the library root loads no transport and no codec package", () => {
    const loaded = [...staticPackages(join(SRC, "index.ts"))].sort();
    assert.ok(loaded.includes("@nearwire/core"), `the walk found the imports: ${loaded}`);
    for (const pkg of [
      "@nearwire/uds",
      "@nearwire/codec-msgpack",
      "@nearwire/codec-protobuf",
      "@nearwire/codec-flatbuffers",
      "protobufjs",
      "flatbuffers",
    ])
      assert.ok(!loaded.includes(pkg), `${pkg} is loaded by the root: ${loaded}`);
  });

  it("only the CLI imports @nearwire/uds", () => {
    assert.ok(staticPackages(join(SRC, "cli/cli.ts")).has("@nearwire/uds"));
    assert.ok(!staticPackages(join(SRC, "codecs/index.ts")).has("@nearwire/uds"));
  });
});

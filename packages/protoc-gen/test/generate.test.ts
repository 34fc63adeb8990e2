import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Code, NearwireError } from "@nearwire/core";
import protobuf from "protobufjs";
import { generateFromProtoFiles, generateTs, runPlugin } from "../src/index.js";

const PKG = fileURLToPath(new URL("..", import.meta.url));
const FIXTURES = join(PKG, "test/fixtures");
const INCLUDE = [FIXTURES, join(FIXTURES, "include")];
const PROTOS = ["greeter.proto", "edge-cases.proto"];
const OUTPUTS = ["greeter_nearwire.ts", "edge-cases_nearwire.ts"];
const CLI = join(PKG, "src/nearwire-protoc.ts");
const PLUGIN = join(PKG, "src/protoc-gen-nearwire.ts");
const README = join(PKG, "../codec-protobuf/README.md");
const TSC = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const REGENERATE =
  "regenerate: node --import tsx src/nearwire-protoc.ts -I test/fixtures -I test/fixtures/include " +
  "--out test/fixtures/generated test/fixtures/greeter.proto test/fixtures/edge-cases.proto";

function committed(name: string): string {
  return readFileSync(join(FIXTURES, "generated", name), "utf8");
}

/** Runs `nearwire-protoc args…` in `cwd` without blocking the event loop. */
function cli(args: string[], cwd: string): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], { cwd });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (s: string) => {
      stderr += s;
    });
    child.once("close", (status) => resolve({ status, stderr }));
  });
}

/** A scratch directory inside the package, so that generated imports resolve its node_modules. */
const scratch = mkdtempSync(join(PKG, ".gen-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The generator example of @nearwire/codec-protobuf's README ("Services from .proto"): its
 * ```proto file (named in a first-line comment), its `npx nearwire-protoc` arguments and its
 * ```ts generated block.
 */
function readmeExample(): { protoPath: string; proto: string; args: string[]; code: string } {
  const md = readFileSync(README, "utf8");
  const section = md.slice(md.indexOf("### Generated: `@nearwire/protoc-gen`"));
  const block = (info: string) => {
    const found = new RegExp(`\`\`\`${info}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1];
    assert.ok(found, `${README} has a \`\`\`${info} block`);
    return found;
  };
  const proto = block("proto");
  const protoPath = /^\/\/ (\S+\.proto)$/m.exec(proto)?.[1];
  assert.ok(protoPath, "the proto block names its file in a first-line comment");
  const command = /^npx nearwire-protoc (.*?)\s*(#.*)?$/m.exec(block("sh"))?.[1];
  assert.ok(command, "the sh block has an `npx nearwire-protoc` line");
  return { protoPath, proto, args: command.split(/\s+/), code: block("ts generated") };
}

describe("nearwire-protoc (protobufjs)", () => {
  const readme = readmeExample();
  const readmeDir = join(scratch, "readme");

  test("writes the committed modules byte for byte, and the same bytes on a second run", async () => {
    mkdirSync(join(readmeDir, dirname(readme.protoPath)), { recursive: true });
    writeFileSync(join(readmeDir, readme.protoPath), readme.proto);
    const [run, readmeRun] = await Promise.all([
      cli(
        [
          ...INCLUDE.flatMap((dir) => ["-I", dir]),
          "--out",
          join(scratch, "fixtures/generated"),
          ...PROTOS.map((p) => join(FIXTURES, p)),
        ],
        PKG,
      ),
      cli(readme.args, readmeDir),
    ]);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(readmeRun.status, 0, readmeRun.stderr);
    for (const name of OUTPUTS) {
      const written = readFileSync(join(scratch, "fixtures/generated", name), "utf8");
      assert.equal(written, committed(name), REGENERATE);
    }
    const again = generateFromProtoFiles(
      PROTOS.map((p) => join(FIXTURES, p)),
      { includeDirs: INCLUDE },
    );
    assert.deepEqual(
      again.map((f) => f.name),
      OUTPUTS,
    );
    for (const file of again) assert.equal(file.content, committed(file.name));
  });

  test("the output compiles under the repository's strict tsconfig and types the calls", () => {
    // typed-usage.ts holds @ts-expect-error lines: a type the generator got too loose fails too.
    for (const name of ["typed-usage.ts", "greeter-handlers.ts"])
      copyFileSync(join(FIXTURES, name), join(scratch, "fixtures", name));
    writeFileSync(join(readmeDir, "src/example.ts"), readme.code);
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        extends: "../../../tsconfig.base.json",
        compilerOptions: { noEmit: true, rootDir: "." },
        include: ["fixtures", "readme/src"],
      }),
    );
    const run = spawnSync(process.execPath, [TSC, "-p", scratch], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stdout + run.stderr);
  });

  test("the codec-protobuf README's generated-services example runs", () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "src/example.ts"], {
      cwd: readmeDir,
      encoding: "utf8",
    });
    assert.equal(run.status, 0, run.stderr);
  });

  test("usage errors exit 2, a schema error exits 1 and names the file", async () => {
    const [usage, missing] = await Promise.all([
      cli([], PKG),
      cli(["--out", scratch, join(FIXTURES, "none.proto")], PKG),
    ]);
    assert.equal(usage.status, 2);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /none\.proto/);
  });
});

describe("protoc-gen-nearwire (protoc plugin)", () => {
  const protoc = spawnSync("protoc", ["--version"], { encoding: "utf8" });
  const skip =
    protoc.status === 0 ? false : "protoc is not installed (apt-get install protobuf-compiler)";

  test("protoc --nearwire_out writes what nearwire-protoc writes", { skip }, () => {
    const plugin = join(scratch, "protoc-gen-nearwire");
    writeFileSync(plugin, `#!/bin/sh\nexec "${process.execPath}" --import tsx "${PLUGIN}"\n`);
    chmodSync(plugin, 0o755);
    const out = join(scratch, "protoc");
    mkdirSync(out);
    // greeter.proto only: Debian's protoc comes without google/protobuf/*.proto (libprotobuf-dev).
    const run = spawnSync(
      "protoc",
      [
        `--plugin=protoc-gen-nearwire=${plugin}`,
        `-I${FIXTURES}`,
        `--nearwire_out=${out}`,
        "greeter.proto",
      ],
      { cwd: PKG, encoding: "utf8" },
    );
    assert.equal(run.status, 0, run.stderr);
    assert.equal(
      readFileSync(join(out, "greeter_nearwire.ts"), "utf8"),
      committed("greeter_nearwire.ts"),
    );
  });

  test("a parameter is refused in the response's error, for protoc to print", () => {
    const plugin = protobuf.parse(`
      syntax = "proto2";
      message Req { optional string parameter = 2; }
      message Res { optional string error = 1; }
    `).root;
    const request = plugin.lookupType("Req");
    const bytes = runPlugin(request.encode({ parameter: "target=js" }).finish());
    const response = plugin.lookupType("Res").decode(bytes) as unknown as { error: string };
    assert.match(response.error, /takes no parameter/);
  });
});

describe("generateTs", () => {
  test("a TypeScript name two types would share is INVALID_ARGUMENT", () => {
    const { root } = protobuf.parse(`
      syntax = "proto3";
      package p;
      message A { message B { int32 x = 1; } }
      message A_B { int32 y = 1; }
    `);
    assert.throws(
      () => generateTs(root, { fileName: "p.proto", types: ["p.A", "p.A_B"], services: [] }),
      (err: unknown) => err instanceof NearwireError && err.code === Code.InvalidArgument,
    );
  });

  test("an unresolvable type is INVALID_ARGUMENT; an unknown target NOT_FOUND", () => {
    const bad = protobuf.parse(`syntax = "proto3"; message M { Missing m = 1; }`).root;
    assert.throws(
      () => generateTs(bad, { fileName: "m.proto", types: ["M"], services: [] }),
      (err: unknown) => err instanceof NearwireError && err.code === Code.InvalidArgument,
    );
    const ok = protobuf.parse(`syntax = "proto3"; message M { int32 x = 1; }`).root;
    assert.throws(
      () => generateTs(ok, { fileName: "m.proto", types: ["N"], services: [] }),
      (err: unknown) => err instanceof NearwireError && err.code === Code.NotFound,
    );
  });

  test("generateFromProtoFiles names the output after the file's path under -I", () => {
    const files = generateFromProtoFiles([join(FIXTURES, "include/other.proto")], {
      includeDirs: [FIXTURES],
    });
    assert.deepEqual(
      files.map((f) => f.name),
      ["include/other_nearwire.ts"],
    );
    assert.match(files[0]?.content ?? "", /from include\/other\.proto\. DO NOT EDIT\./);
  });
});

// Every published package is publish-ready (issue 11): package.json metadata, tarball contents,
// LICENSE, ranges, peers; and every package (with every subpath it exports) loads with
// require() from a CommonJS file. Reads the built dist/, so run it after `pnpm build`.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../..", import.meta.url));

interface Manifest {
  name: string;
  private?: boolean;
  license?: string;
  description?: string;
  keywords?: string[];
  author?: string;
  homepage?: string;
  bugs?: { url?: string };
  repository?: { type?: string; url?: string; directory?: string };
  exports: Record<string, string | Record<string, string>>;
  files?: string[];
  engines?: { node?: string };
  publishConfig?: { access?: string };
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const published = readdirSync(join(root, "packages"))
  .map((dir) => ({ dir, path: join(root, "packages", dir) }))
  .filter(({ path }) => existsSync(join(path, "package.json")))
  .map(({ dir, path }) => ({
    dir,
    path,
    pkg: JSON.parse(readFileSync(join(path, "package.json"), "utf8")) as Manifest,
  }))
  .filter(({ pkg }) => pkg.private !== true);

describe("published packages", () => {
  it("are the expected sixteen", () => {
    assert.deepEqual(published.map(({ pkg }) => pkg.name).sort(), [
      "@nearwire/codec-flatbuffers",
      "@nearwire/codec-msgpack",
      "@nearwire/codec-protobuf",
      "@nearwire/core",
      "@nearwire/crc32c-native",
      "@nearwire/frame",
      "@nearwire/grpc-uds",
      "@nearwire/otel",
      "@nearwire/peercred",
      "@nearwire/protoc-gen",
      "@nearwire/ring",
      "@nearwire/shm-ring",
      "@nearwire/socket",
      "@nearwire/transfer",
      "@nearwire/uds",
      "@nearwire/worker",
    ]);
  });

  const license = readFileSync(join(root, "LICENSE"), "utf8");
  for (const { dir, path, pkg } of published) {
    it(`${pkg.name}: metadata, files, prepack, LICENSE, CHANGELOG, ranges`, () => {
      assert.equal(pkg.license, "MIT");
      assert.equal(readFileSync(join(path, "LICENSE"), "utf8"), license, "LICENSE is the root's");
      assert.ok(existsSync(join(path, "CHANGELOG.md")), "CHANGELOG.md");
      assert.ok(existsSync(join(path, "README.md")), "README.md");
      for (const field of ["description", "author", "homepage"] as const)
        assert.ok(pkg[field], `${field} is set`);
      assert.ok((pkg.keywords ?? []).includes("nearwire"), "keywords");
      assert.ok(pkg.bugs?.url, "bugs.url");
      assert.equal(pkg.repository?.directory, `packages/${dir}`, "repository.directory");
      assert.equal(pkg.publishConfig?.access, "public");
      assert.match(pkg.scripts?.prepack ?? "", /scripts\/prepack\.mjs/, "prepack builds");
      assert.ok(pkg.engines?.node, "engines.node");
      const files = pkg.files ?? [];
      for (const f of ["dist", "!dist/**/*.map", "README.md", "CHANGELOG.md"])
        assert.ok(files.includes(f), `files has ${f}`);
      assert.ok(!files.includes("src") && !files.includes("test"), "no sources or tests shipped");
      assert.deepEqual(pkg.exports["./package.json"], "./package.json");
      const main = pkg.exports["."];
      assert.ok(
        typeof main === "object" && main.types && main.default,
        'exports "." types+default',
      );
      for (const [kind, deps] of Object.entries({
        dependencies: pkg.dependencies,
        optionalDependencies: pkg.optionalDependencies,
        peerDependencies: pkg.peerDependencies,
      }))
        for (const [name, spec] of Object.entries(deps ?? {}))
          assert.ok(
            spec === "workspace:^" || spec.startsWith("^"),
            `${kind}.${name} is a ^ range or workspace:^ (got ${spec})`,
          );
    });
  }

  // Issue 14 item 4: a package's root exports what its README documents; lower-level pieces go
  // to documented subpaths.
  for (const { path, pkg } of published) {
    it(`${pkg.name}: every root export is named in the README`, () => {
      const readme = readFileSync(join(path, "README.md"), "utf8");
      const dts = readFileSync(join(path, "dist/index.d.ts"), "utf8");
      const names = new Set<string>();
      for (const m of dts.matchAll(/export (?:type )?\{([^}]*)\}/g))
        for (const item of (m[1] ?? "").split(","))
          names.add(
            item
              .trim()
              .replace(/^type\s+/, "")
              .split(/\s+as\s+/)
              .pop() ?? "",
          );
      for (const m of dts.matchAll(/export (?:declare )?(?:const|function|class) (\w+)/g))
        names.add(m[1] ?? "");
      names.delete("");
      const undocumented = [...names].filter((n) => !new RegExp(`\\b${n}\\b`).test(readme));
      assert.deepEqual(undocumented, [], `exported by ${pkg.name} but not in its README`);
    });
  }

  it("libraries whose objects cross the API are peer dependencies", () => {
    const byName = new Map(published.map(({ pkg }) => [pkg.name, pkg]));
    for (const [name, peer] of [
      ["@nearwire/codec-protobuf", "protobufjs"],
      ["@nearwire/codec-flatbuffers", "flatbuffers"],
      ["@nearwire/otel", "@opentelemetry/api"],
    ] as const) {
      const pkg = byName.get(name);
      assert.ok(pkg?.peerDependencies?.[peer], `${name} peer-depends on ${peer}`);
      assert.equal(pkg?.dependencies?.[peer], undefined, `${peer} is not a plain dependency`);
    }
  });

  it("every package and subpath loads with require() from a .cjs file", () => {
    const targets = published.map(({ path, pkg }) => ({
      dir: path,
      specifiers: Object.keys(pkg.exports)
        .filter((k) => k !== "./package.json")
        .map((k) => (k === "." ? pkg.name : `${pkg.name}/${k.slice(2)}`)),
    }));
    const tmp = mkdtempSync(join(tmpdir(), "nearwire-require-"));
    try {
      const file = join(tmp, "require-all.cjs");
      writeFileSync(
        file,
        `"use strict";
const { createRequire } = require("node:module");
const out = {};
for (const { dir, specifiers } of ${JSON.stringify(targets)}) {
  // A package requires itself by name through its "exports" (self-reference).
  const req = createRequire(dir + "/package.json");
  for (const s of specifiers) out[s] = Object.keys(req(s)).sort();
}
process.stdout.write(JSON.stringify(out));
`,
      );
      const loaded = JSON.parse(
        execFileSync(process.execPath, [file], { encoding: "utf8", timeout: 30_000 }),
      ) as Record<string, string[]>;
      for (const { specifiers } of targets)
        for (const s of specifiers) assert.ok((loaded[s] ?? []).length > 0, `${s} has exports`);
      const has = (s: string, name: string) =>
        assert.ok(loaded[s]?.includes(name), `require("${s}").${name}`);
      has("@nearwire/core", "defineService");
      has("@nearwire/frame", "crc32c");
      has("@nearwire/uds", "createUdsTransport");
      has("@nearwire/grpc-uds", "createGrpcTransport");
      has("@nearwire/shm-ring", "createShmRingTransport");
      has("@nearwire/worker", "createWorkerTransport");
      has("@nearwire/codec-protobuf", "createProtobufCodec");
      has("@nearwire/transfer", "createTransferClient");
      has("@nearwire/otel", "otelInterceptor");
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

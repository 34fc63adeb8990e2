import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The Go yardstick's build: `apps/bench/go/` (one program, `nearwire-go-bench`, with the grpc-go
 * and plain Unix-socket echo servers and clients) compiled with the `go` on PATH in GOPATH mode
 * against Debian's grpc-go (no module proxy needed), once per source hash, into
 * `apps/bench/out/go-bin/<hash>/`. When Go is missing or the build fails, the go-* rows are
 * skipped with {@link GO_INSTALL_HINT}; the run goes on.
 */

/** `apps/bench` (from `src/` under tsx and from `dist/`). */
const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The Go sources. */
export const GO_SOURCE_DIR = join(PACKAGE_DIR, "go");

/** Where built binaries are kept, one directory per source hash (git-ignored). */
export const GO_CACHE_DIR = join(PACKAGE_DIR, "out", "go-bin");

/** How to get a Go that builds the yardstick (Debian/Ubuntu). */
export const GO_INSTALL_HINT =
  "apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev";

/** GOPATH the build uses: Debian's grpc-go lives here (`$NEARWIRE_BENCH_GOPATH` names another). */
export const DEFAULT_GOPATH = "/usr/share/gocode";

/** A toolchain found on PATH, or why there is none. */
export type GoToolchain = { version: string } | { missing: string };

/** A built yardstick binary, or why there is none. */
export type GoBuild =
  | { binary: string; version: string; cached: boolean }
  | { failed: string; version?: string };

/** `go version` of the `go` on PATH (`env.PATH`), without building anything. */
export function findGo(env: NodeJS.ProcessEnv = process.env): GoToolchain {
  const r = spawnSync("go", ["version"], { env, encoding: "utf8", timeout: 10_000 });
  if (r.error !== undefined) {
    const code = (r.error as NodeJS.ErrnoException).code;
    return { missing: code === "ENOENT" ? "go not found on PATH" : r.error.message };
  }
  if (r.status !== 0) return { missing: `go version failed: ${firstLine(r.stderr)}` };
  return { version: r.stdout.trim().replace(/^go version /, "") };
}

/** sha256 over the Go sources (names and contents) and the toolchain's version, 16 hex digits. */
export function goSourceHash(version: string, dir = GO_SOURCE_DIR): string {
  const h = createHash("sha256").update(version);
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".go"))
    .sort())
    h.update(`\0${name}\0`).update(readFileSync(join(dir, name)));
  return h.digest("hex").slice(0, 16);
}

/**
 * Builds the yardstick unless a binary for these sources and this toolchain is cached; never
 * throws. The binary is built under a temporary name and renamed, so runs started at the same
 * time do not see half a file.
 */
export function buildGoBench(
  env: NodeJS.ProcessEnv = process.env,
  cacheDir = GO_CACHE_DIR,
): GoBuild {
  const go = findGo(env);
  if ("missing" in go) return { failed: go.missing };
  const dir = join(cacheDir, goSourceHash(go.version));
  const binary = join(dir, "nearwire-go-bench");
  if (existsSync(binary)) return { binary, version: go.version, cached: true };
  mkdirSync(dir, { recursive: true });
  const tmp = `${binary}.${process.pid}.tmp`;
  const buildEnv: NodeJS.ProcessEnv = {
    ...env,
    GOPATH: env.NEARWIRE_BENCH_GOPATH ?? DEFAULT_GOPATH,
    GO111MODULE: "off",
    GOFLAGS: "",
  };
  // go needs a build cache; without HOME (some CI containers) it would refuse to build.
  if (env.GOCACHE === undefined && env.HOME === undefined && env.XDG_CACHE_HOME === undefined)
    buildEnv.GOCACHE = join(cacheDir, "gocache");
  const r = spawnSync("go", ["build", "-o", tmp, "."], {
    cwd: GO_SOURCE_DIR,
    env: buildEnv,
    encoding: "utf8",
    timeout: 300_000,
  });
  if (r.error !== undefined || r.status !== 0) {
    rmSync(tmp, { force: true });
    const why = r.error?.message ?? firstLine(r.stderr.replace(/^#.*\n/, ""));
    return { failed: `go build failed: ${why}`, version: go.version };
  }
  renameSync(tmp, binary);
  return { binary, version: go.version, cached: false };
}

function firstLine(text: string): string {
  return text.trim().split("\n")[0] ?? "";
}

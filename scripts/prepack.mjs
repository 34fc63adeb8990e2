// The `prepack` of every published package (`npm pack`, `pnpm pack`, `npm publish` run it in the
// package directory): builds the package's workspace dependencies (turbo, so a fresh clone packs
// without a prior `pnpm build`), then the package itself into a clean `dist/` without source maps
// or declaration maps (the tarball ships no `src/`, so maps would point at missing files), and
// fails when the entry points named in package.json were not produced.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkgDir = process.cwd();
const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const run = (file, args, cwd) => execFileSync(file, args, { cwd, stdio: "inherit" });

// Dependencies only (`name^...`): this package is built below without maps. A caller that built
// every package first (scripts/consumer-test.mjs packs all 14 after one `turbo run build`) sets
// NEARWIRE_PREPACK_DEPS_BUILT=1 to skip it: a turbo run per package is a third of a pack's time.
const deps = Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies }).filter((d) =>
  d.startsWith("@nearwire/"),
);
// biome-ignore lint/suspicious/noUndeclaredEnvVars: read by `npm pack`'s prepack, not a turbo task
if (deps.length > 0 && process.env.NEARWIRE_PREPACK_DEPS_BUILT !== "1")
  run(
    join(root, "node_modules/.bin/turbo"),
    ["run", "build", `--filter=${pkg.name}^...`, "--output-logs=errors-only"],
    root,
  );

rmSync(join(pkgDir, "dist"), { recursive: true, force: true });
run(
  join(root, "node_modules/.bin/tsc"),
  ["-p", "tsconfig.build.json", "--sourceMap", "false", "--declarationMap", "false"],
  pkgDir,
);

const entries = [];
const collect = (v) => {
  if (typeof v === "string") entries.push(v);
  else if (v !== null && typeof v === "object") for (const x of Object.values(v)) collect(x);
};
collect(pkg.exports);
collect(pkg.bin);
for (const entry of new Set(entries)) {
  if (!entry.startsWith("./dist/")) continue;
  if (!existsSync(join(pkgDir, entry))) {
    console.error(`prepack ${pkg.name}: ${entry} was not built`);
    process.exit(1);
  }
}

// Addon packages (a binding.gyp): compile the prebuilt binary the tarball ships for this platform
// into prebuilds/<platform>-<arch>/ (prebuildify; N-API, so one file serves every Node version;
// tagged glibc or musl). On install, node-gyp-build loads it when it fits and compiles from the
// shipped sources only when none does. Headers: npm's `nodedir` when set, else the running
// Node's own (`<prefix>/include/node`), so no download is needed.
if (existsSync(join(pkgDir, "binding.gyp"))) {
  const env = { ...process.env };
  const prefix = dirname(dirname(process.execPath));
  if (!env.npm_config_nodedir && existsSync(join(prefix, "include/node/node_api.h")))
    env.npm_config_nodedir = prefix;
  rmSync(join(pkgDir, "prebuilds"), { recursive: true, force: true });
  try {
    execFileSync(
      join(root, "node_modules/.bin/prebuildify"),
      ["--napi", "--strip", "--tag-libc", `--target=${process.versions.node}`],
      { cwd: pkgDir, env, stdio: "pipe", encoding: "utf8" },
    );
  } catch (error) {
    console.error(
      `${error.stdout ?? ""}${error.stderr ?? ""}prepack ${pkg.name}: prebuildify failed`,
    );
    process.exit(1);
  }
  const dir = join(pkgDir, "prebuilds", `${process.platform}-${process.arch}`);
  if (!existsSync(dir) || !readdirSync(dir).some((f) => f.endsWith(".node"))) {
    console.error(`prepack ${pkg.name}: no prebuilt addon in ${dir}`);
    process.exit(1);
  }
  // prebuildify moved build/Release/<target>.node into prebuilds/: put the compiled one back, so
  // a working tree that packed still loads its own build (which wins over a prebuild).
  const objects = join(pkgDir, "build/Release/obj.target");
  for (const file of readdirSync(objects).filter((f) => f.endsWith(".node"))) {
    if (!existsSync(join(pkgDir, "build/Release", file)))
      copyFileSync(join(objects, file), join(pkgDir, "build/Release", file));
  }
}

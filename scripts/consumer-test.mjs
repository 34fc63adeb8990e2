// The consumer test (issue 11): what a user outside this monorepo gets from npm. It packs every
// published package (`pnpm pack`, so each `prepack` builds dist and the addons' prebuilt
// binaries), installs the tarballs with plain `npm install` into temp projects in the OS temp
// dir, and runs the two-process greeter of packages/uds/README.md (served, called from a second
// process, stopped with SIGTERM) on every transport: uds, grpc-uds, shm-ring.
//
//   prebuilt    npm install with no compiler on PATH (only node, npm and sh): nothing is
//               compiled, every addon loads its prebuilt binary; the greeter from ESM and from
//               CommonJS (require() of the ES modules, Node >= 20.19)
//   no prebuild the addon tarballs repacked without prebuilds/ (a platform with no prebuild),
//               npm install with no compiler: the install succeeds, the failed compiles only
//               warn, uds and grpc-uds run, frame falls back to @node-rs/crc32, importing
//               shm-ring fails FAILED_PRECONDITION not-built naming `npm rebuild
//               @nearwire/shm-ring`; that command, with the compiler back, compiles the shipped
//               sources and shm-ring runs
//
//   root README the first example of the root README.md as a newcomer runs it, read from the
//               README's fenced blocks (```sh install, ```ts <file>, ```sh run): `npm init -y`
//               in an empty folder (a CommonJS project), the install lines with each
//               @nearwire/<name> swapped for its tarball (the packages they pull in come from
//               the tarballs too, through `overrides`; tsx comes from the registry), the file
//               saved under the README's name, the two run lines as two processes; then the
//               sentence after it ("Swap `createUdsTransport` for …"): the packages of its
//               `npm install` lines installed together, and each swap made in the greeter and
//               run the same way (on the first Node version only: it checks names)
//
// Both on the machine's Node 20 and on Node 24 (scripts/node24.mjs), side by side;
// `--node20-only` skips Node 24. Everything lives in one temp dir, removed at the end.
//
//   node scripts/consumer-test.mjs [--node20-only]
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ts = createRequire(join(root, "package.json"))("typescript");
const ADDONS = ["shm-ring", "crc32c-native", "peercred"];
const TRANSPORTS = {
  uds: 'import { createUdsTransport } from "@nearwire/uds";',
  "grpc-uds": 'import { createGrpcTransport as createUdsTransport } from "@nearwire/grpc-uds";',
  "shm-ring": 'import { createShmRingTransport as createUdsTransport } from "@nearwire/shm-ring";',
};
const STEP_MS = 60_000;

const tmp = mkdtempSync(join(tmpdir(), "nearwire-consumer-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs a command to completion (without blocking the other Node version's tests). */
function run(file, args, options = {}) {
  const { timeout = STEP_MS, ...rest } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], ...rest });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`${file} ${args.join(" ")} → ${code ?? signal}\n${stdout}${stderr}`));
    });
  });
}

/** Succeeds when `sh -c script` exits 0 in `env`. */
function sh(script, env) {
  return spawnSync("sh", ["-c", script], { env, stdio: "ignore" }).status === 0;
}

// ── the tarballs ────────────────────────────────────────────────────────────────────────────────
const tarballs = join(tmp, "tarballs");
const bare = join(tmp, "tarballs-no-prebuilds");

/**
 * The README's 1 s deadline is for a person at a terminal; the tests' deadline is generous (a
 * loaded CI machine is slow, and speed is the benchmark's business, not this test's).
 */
const generousDeadline = (source) => source.replaceAll(/timeoutMs: \d+/g, "timeoutMs: 30_000");

/** The greeter of packages/uds/README.md with its import swapped to `transport`. */
function greeterSource(transport) {
  const readme = readFileSync(join(root, "packages/uds/README.md"), "utf8");
  const block = /```ts greeter\.ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, "packages/uds/README.md has a ```ts greeter.ts block");
  const line = TRANSPORTS.uds;
  assert.ok(block.includes(line), `the greeter imports: ${line}`);
  return generousDeadline(block.replace(line, TRANSPORTS[transport]));
}

/** Writes the greeter for `transport` as ESM (`.mjs`) and CommonJS (`.cjs`) into `dir`. */
function writeGreeters(dir) {
  for (const transport of Object.keys(TRANSPORTS)) {
    const source = greeterSource(transport);
    const esm = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(join(dir, `greeter-${transport}.mjs`), esm);
    // CommonJS: every import becomes require(); top-level await needs an async function.
    const cjs = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(
      join(dir, `greeter-${transport}.cjs`),
      `(async () => {\n${cjs}\n})().catch((e) => {\n  console.error(e);\n  process.exitCode = 1;\n});\n`,
    );
  }
}

/**
 * Serves the greeter (`node greeter serve`), calls it from a second process, then sends the
 * server SIGTERM: the call must print "hello, Ada", the server must exit 0 by itself and leave
 * no socket file.
 */
function twoProcesses(p, file) {
  return serveAndCall(p, [p.node, file, "serve"], [p.node, file, "call"], `${file}.sock`);
}

/** {@link twoProcesses} with the two command lines given (argv[0] is looked up on p's PATH). */
async function serveAndCall(p, serveArgv, callArgv, sockName) {
  const sock = join(p.dir, sockName);
  const file = serveArgv.join(" ");
  const env = { ...p.env, GREETER_ADDRESS: sock };
  const server = spawn(serveArgv[0], serveArgv.slice(1), {
    cwd: p.dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  server.stderr.on("data", (d) => {
    log += d;
  });
  const exited = new Promise((resolve) =>
    server.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const kill = setTimeout(() => server.kill("SIGKILL"), STEP_MS);
  try {
    await new Promise((resolve, reject) => {
      server.stdout.on("data", (d) => String(d).includes("serving on") && resolve());
      exited.then(({ code, signal }) =>
        reject(new Error(`${file} exited (${code ?? signal}): ${log}`)),
      );
    });
    const call = await run(callArgv[0], callArgv.slice(1), { cwd: p.dir, env });
    assert.equal(call.stdout.trim(), "hello, Ada", call.stderr);
    server.kill("SIGTERM");
    const { code, signal } = await exited;
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, `${file}: ${log}`);
    assert.equal(existsSync(sock), false, "the server removed its socket file");
  } finally {
    clearTimeout(kill);
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
  }
}

/**
 * A temp npm project for `node` (a binary path); `compiler: false` leaves only node, npm, sh.
 * `empty: true` leaves the folder empty (no package.json, no greeters): the PATH's own folder,
 * which picks the Node version, sits beside it.
 */
async function project(name, node, { compiler, empty = false }) {
  const dir = join(tmp, name);
  const bin = join(tmp, `${name}.bin`);
  mkdirSync(dir);
  mkdirSync(bin);
  symlinkSync(node, join(bin, "node"));
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  delete env.NODE_OPTIONS;
  if (!compiler) {
    for (const tool of ["npm", "sh"]) {
      const found = (await run("sh", ["-c", `command -v ${tool}`])).stdout.trim();
      symlinkSync(found, join(bin, tool));
    }
    env.PATH = bin;
    assert.equal(sh("command -v cc || command -v g++ || command -v make", env), false);
  }
  // An addon compiled from source for this Node uses its own headers (Node 24's come with it).
  const prefix = dirname(dirname(node));
  if (existsSync(join(prefix, "include/node/node_api.h"))) env.npm_config_nodedir = prefix;
  if (empty) return { dir, bin, node, env };
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: `consumer-${name}`, private: true }, null, 2)}\n`,
  );
  writeGreeters(dir);
  return { dir, bin, node, env };
}

/** `npm install` of every tarball in `from`; checks each @nearwire package came from one. */
async function npmInstall(p, from, ...flags) {
  const files = readdirSync(from).map((f) => join(from, f));
  const args = ["install", "--no-audit", "--no-fund", "--prefer-offline", ...flags, ...files];
  const r = await run("npm", args, { cwd: p.dir, env: p.env, timeout: 2 * STEP_MS });
  const lock = JSON.parse(readFileSync(join(p.dir, "package-lock.json"), "utf8"));
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (!key.includes("node_modules/@nearwire/")) continue;
    assert.match(key, /^node_modules\/@nearwire\/[^/]+$/, `one copy of each: ${key}`);
    assert.match(entry.resolved ?? "", /^file:/, `${key} comes from a packed tarball`);
  }
  return `${r.stdout}${r.stderr}`;
}

/** Runs ESM `code` in the project and returns what it printed, parsed as JSON. */
async function probe(p, code) {
  const r = await run(p.node, ["--input-type=module", "-e", code], { cwd: p.dir, env: p.env });
  return JSON.parse(r.stdout);
}

const IMPORT_SHM = `
try {
  await import("@nearwire/shm-ring");
  const { addonPath } = await import("@nearwire/shm-ring/segment");
  console.log(JSON.stringify({ addonPath }));
} catch (e) {
  console.log(JSON.stringify({ code: e.code, reason: e.reason, message: e.message }));
}`;

// ── the root README's first example ─────────────────────────────────────────────────────────────
/**
 * The root README's first example as its fenced blocks give it: the install command lines
 * (```sh install, comments dropped), the file's name and source (the first ```ts <name>), the
 * run command lines (```sh run: the one ending in `serve` and the call), and the swaps of the
 * sentence after it: each `from` identifier, what replaces it (`to`, or `to()` when the README
 * calls it) and the `npm install` line that brings it.
 */
function rootReadmeExample() {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const block = (info) => new RegExp(`\`\`\`${info}\n([\\s\\S]*?)\`\`\``).exec(readme);
  const lines = (text) =>
    text
      .split("\n")
      .map((l) => l.replace(/(^|\s)#.*$/, "").trim())
      .filter(Boolean);
  const install = block("sh install");
  const file = block("ts (\\S+)");
  const run = block("sh run");
  assert.ok(install && file && run, "README.md has ```sh install, ```ts <file> and ```sh run");
  const [, name, source] = file;
  assert.ok(name && source);
  assert.ok(readme.includes(`Save as \`${name}\``), `the README says to save it as ${name}`);
  const runLines = lines(run[1] ?? "").map((l) => l.split(/\s+/));
  const serve = runLines.find((argv) => argv.at(-1) === "serve");
  const call = runLines.find((argv) => argv !== serve);
  assert.ok(
    serve && call && runLines.length === 2,
    `two run lines, one ending in serve: ${run[1]}`,
  );
  assert.ok(serve.includes(name) && call.includes(name), `both run lines run ${name}`);
  const paragraph = /\nSwap `[\s\S]*?\n\n/.exec(readme)?.[0] ?? "";
  const swaps = [];
  let from;
  for (const m of paragraph.matchAll(/`(\w+)` for\s|`(\w+)(\(\))?`\s\(`(npm install [^`]+)`/g)) {
    if (m[1]) from = m[1];
    else swaps.push({ from, to: m[2], call: m[3] !== undefined, install: m[4] });
  }
  assert.ok(swaps.length >= 2 && swaps.every((w) => w.from), `the swap sentence: ${paragraph}`);
  return { install: lines(install[1] ?? ""), name, source, serve, call, swaps };
}

/**
 * `source` with one swap made: `from` leaves its import (an import left empty goes), `to` is
 * imported from the package of the swap's install line, and every other `from` becomes `to`
 * (`to()` when the README writes a call).
 */
function applySwap(source, { from, to, call, install }) {
  const pkg = install.split(/\s+/).find((w) => w.startsWith("@nearwire/"));
  assert.ok(pkg, `${install} names a package`);
  let dropped = false;
  const out = source.replace(/import \{([^}]*)\} from "([^"]+)";\n/g, (line, names, spec) => {
    const all = names.split(",").map((n) => n.trim());
    const kept = all.filter((n) => n && n !== from);
    if (kept.length === all.filter(Boolean).length) return line;
    dropped = true;
    return kept.length > 0 ? `import { ${kept.join(", ")} } from "${spec}";\n` : "";
  });
  assert.ok(dropped, `the greeter imports ${from}`);
  const used = out.replaceAll(new RegExp(`\\b${from}\\b`, "g"), call ? `${to}()` : to);
  return `import { ${to} } from "${pkg}";\n${used}`;
}

/**
 * An `npm install …` line of the README as argv, each `@nearwire/<name>` swapped for its
 * tarball (a name with no tarball fails: the README names a package that is not published).
 */
function installArgv(line, tarballOf) {
  const argv = line.split(/\s+/);
  assert.deepEqual(argv.slice(0, 2), ["npm", "install"], line);
  const swapped = argv.map((w) => {
    if (!w.startsWith("@nearwire/")) return w;
    const tarball = tarballOf.get(w);
    assert.ok(tarball, `${line}: ${w} is a published package`);
    return tarball;
  });
  return [...swapped, "--no-audit", "--no-fund", "--prefer-offline"];
}

/** Each packed package's name → its tarball (read from the tarball's own package.json). */
const tarballOf = new Map();

before(async () => {
  const started = performance.now();
  // Every published package, one at a time: each prepack runs turbo and tsc in the shared tree.
  const published = [];
  for (const parent of ["packages", "apps"]) {
    for (const dir of readdirSync(join(root, parent))) {
      const manifest = join(root, parent, dir, "package.json");
      if (!existsSync(manifest)) continue;
      const pkg = JSON.parse(readFileSync(manifest, "utf8"));
      if (!pkg.private) published.push(pkg.name);
    }
  }
  const filters = published.flatMap((name) => ["--filter", name]);
  const pnpm = ["-y", "pnpm@12.4.2"];
  // One build of everything (cached after `pnpm test`), so no prepack needs to build its deps.
  await run("npx", [...pnpm, "exec", "turbo", "run", "build", "--output-logs=errors-only"], {
    cwd: root,
    timeout: 5 * STEP_MS,
  });
  await run(
    "npx",
    [
      ...pnpm,
      "-r",
      "--workspace-concurrency=1",
      ...filters,
      "pack",
      "--pack-destination",
      tarballs,
    ],
    { cwd: root, timeout: 5 * STEP_MS, env: { ...process.env, NEARWIRE_PREPACK_DEPS_BUILT: "1" } },
  );
  const names = readdirSync(tarballs);
  assert.equal(names.length, published.length, names.join(" "));
  for (const name of names) {
    const file = join(tarballs, name);
    const manifest = await run("tar", ["xzOf", file, "package/package.json"]);
    tarballOf.set(JSON.parse(manifest.stdout).name, file);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`# packed ${names.length} packages (prepack: build, prebuilds) in ${seconds} s`);
  // The same tarballs, the addons' without prebuilds/ (what a platform with no prebuild sees).
  mkdirSync(bare);
  for (const name of names) {
    if (!ADDONS.some((a) => name.startsWith(`nearwire-${a}-`))) {
      copyFileSync(join(tarballs, name), join(bare, name));
      continue;
    }
    const x = join(tmp, `x-${name}`);
    mkdirSync(x);
    await run("tar", ["xzf", join(tarballs, name), "-C", x]);
    assert.ok(existsSync(join(x, "package/prebuilds/linux-x64")), `${name} ships a prebuild`);
    rmSync(join(x, "package/prebuilds"), { recursive: true });
    await run("tar", ["czf", join(bare, name), "-C", x, "package"]);
    rmSync(x, { recursive: true });
  }
});

const nodes = [process.execPath];
if (!process.argv.includes("--node20-only")) {
  nodes.push(
    execFileSync(process.execPath, [join(root, "scripts/node24.mjs")], { encoding: "utf8" }).trim(),
  );
}

// The Node versions run side by side (two cores); each one's steps run in order.
describe("consumer", { concurrency: nodes.length }, () => {
  for (const node of nodes) {
    const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
    const tag = version.split(".")[0];

    describe(`Node ${version}`, () => {
      describe("prebuilt addons, no compiler on PATH", () => {
        let p;
        before(async () => {
          p = await project(`prebuilt-${tag}`, node, { compiler: false });
          await npmInstall(p, tarballs);
        });

        it("compiles nothing (no build/) and loads every addon from prebuilds/", async () => {
          for (const addon of ADDONS) {
            const dir = join(p.dir, "node_modules/@nearwire", addon);
            assert.equal(existsSync(join(dir, "build")), false, `${addon}: no build/`);
          }
          const got = await probe(
            p,
            `const shm = await import("@nearwire/shm-ring/segment");
             const frame = await import("@nearwire/frame");
             const peercred = await import("@nearwire/peercred");
             console.log(JSON.stringify({ addonPath: shm.addonPath, crc: frame.crc32cBackend,
               peercred: typeof peercred.peerCredentials }));`,
          );
          assert.match(got.addonPath, /node_modules\/@nearwire\/shm-ring\/prebuilds\/linux-x64\//);
          assert.equal(got.crc, "@nearwire/crc32c-native");
          assert.equal(got.peercred, "function");
        });

        for (const transport of Object.keys(TRANSPORTS)) {
          it(`${transport}: the README greeter, two processes, ESM`, () =>
            twoProcesses(p, `greeter-${transport}.mjs`));
          it(`${transport}: the README greeter, two processes, CommonJS require()`, () =>
            twoProcesses(p, `greeter-${transport}.cjs`));
        }
      });

      describe("the root README's first example, as a newcomer runs it", () => {
        const example = rootReadmeExample();
        let p;
        before(async () => {
          p = await project(`readme-${tag}`, node, { compiler: true, empty: true });
          await run("npm", ["init", "-y"], { cwd: p.dir, env: p.env });
          // The packages the README's lines pull in come from the tarballs too (a package named
          // by an install line is a direct dependency, which npm's overrides must not name).
          const named = new Set(
            [...example.install, ...example.swaps.map((w) => w.install)].flatMap((l) =>
              l.split(/\s+/).filter((w) => w.startsWith("@nearwire/")),
            ),
          );
          const manifestPath = join(p.dir, "package.json");
          const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
          manifest.overrides = Object.fromEntries(
            [...tarballOf].filter(([n]) => !named.has(n)).map(([n, f]) => [n, `file:${f}`]),
          );
          writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
          for (const line of example.install) {
            const [npm, ...args] = installArgv(line, tarballOf);
            await run(npm, args, { cwd: p.dir, env: p.env, timeout: 2 * STEP_MS });
          }
          writeFileSync(join(p.dir, example.name), generousDeadline(example.source));
        });

        it(`${example.name} as the README writes it, its two run lines`, () =>
          serveAndCall(p, example.serve, example.call, "readme.sock"));

        // The swaps check names (packages, exports), the same on every Node: once, on the first
        // Node version, side by side, after one `npm install` of all their packages.
        describe("each swap of the sentence after it", {
          concurrency: true,
          skip: node !== nodes[0] && "names only: checked once, on the first Node version",
        }, () => {
          before(async () => {
            const [npm, ...args] = installArgv(
              `npm install ${example.swaps.map((w) => w.install.slice("npm install ".length)).join(" ")}`,
              tarballOf,
            );
            await run(npm, args, { cwd: p.dir, env: p.env, timeout: 2 * STEP_MS });
          });

          for (const swap of example.swaps) {
            it(`${swap.from} → ${swap.to} (${swap.install})`, async () => {
              const file = `${swap.to}-${example.name}`;
              writeFileSync(join(p.dir, file), generousDeadline(applySwap(example.source, swap)));
              const argv = (line) => line.map((w) => (w === example.name ? file : w));
              await serveAndCall(p, argv(example.serve), argv(example.call), `${swap.to}.sock`);
            });
          }
        });
      });

      describe("no prebuild fits (addon tarballs without prebuilds/)", () => {
        let p;
        let installLog;
        before(async () => {
          p = await project(`no-prebuild-${tag}`, node, { compiler: false });
          installLog = await npmInstall(p, bare, "--foreground-scripts");
        });

        it("npm install succeeds with no compiler; the failed compiles only warn", () => {
          assert.match(installLog, /npm rebuild @nearwire\/shm-ring/);
          for (const addon of ADDONS) {
            const release = join(p.dir, "node_modules/@nearwire", addon, "build/Release");
            const built =
              existsSync(release) && readdirSync(release).some((f) => f.endsWith(".node"));
            assert.equal(built, false, `${addon} was not built`);
          }
        });

        it("uds and grpc-uds run; frame falls back to @node-rs/crc32", async () => {
          const crc = `console.log(JSON.stringify((await import("@nearwire/frame")).crc32cBackend))`;
          assert.equal(await probe(p, crc), "@node-rs/crc32");
          await twoProcesses(p, "greeter-uds.mjs");
          await twoProcesses(p, "greeter-grpc-uds.cjs");
        });

        it("importing shm-ring fails FAILED_PRECONDITION not-built, naming npm rebuild", async () => {
          const got = await probe(p, IMPORT_SHM);
          assert.deepEqual([got.code, got.reason], [9, "not-built"], JSON.stringify(got));
          assert.match(got.message, /npm rebuild @nearwire\/shm-ring/);
        });

        it("that npm rebuild, with a compiler, compiles shm-ring from the shipped sources", async () => {
          const env = { ...p.env, PATH: `${p.bin}:${process.env.PATH}` };
          await run("npm", ["rebuild", "@nearwire/shm-ring"], {
            cwd: p.dir,
            env,
            timeout: 2 * STEP_MS,
          });
          const got = await probe(p, IMPORT_SHM);
          const path = got.addonPath ?? JSON.stringify(got);
          assert.match(path, /shm-ring\/build\/Release\/nearwire_shm\.node$/);
          await twoProcesses(p, "greeter-shm-ring.mjs");
        });
      });
    });
  }
});

// ── other runtimes ──────────────────────────────────────────────────────────────────────────────
// What the root README claims for Bun and Deno (its "Runtimes and TLS"), from the same tarballs:
// the greeter in two processes on every transport, and the worker README's pool. The runtimes
// come from the npm registry as the `bun` and `deno` packages.
const RUNTIMES = { bun: ["bun@1.4.5", []], deno: ["deno@2.9.6", ["run", "-A"]] };

/** The worker README's three files (```ts worker / greeter / pool) as ESM `.mjs` in `dir`. */
function writeWorkerPool(dir) {
  const readme = readFileSync(join(root, "packages/worker/README.md"), "utf8");
  for (const [tag, name] of [
    ["worker", "greeter-worker"],
    ["greeter", "greeter"],
    ["pool", "pool"],
  ]) {
    const block = new RegExp(`\`\`\`ts ${tag}\\n([\\s\\S]*?)\`\`\``).exec(readme)?.[1];
    assert.ok(block, `packages/worker/README.md has a \`\`\`ts ${tag} block`);
    const esm = ts.transpileModule(block, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    }).outputText;
    writeFileSync(
      join(dir, `${name}.mjs`),
      esm
        .replaceAll("./greeter-worker.js", "./greeter-worker.mjs")
        .replaceAll("./greeter.js", "./greeter.mjs"),
    );
  }
}

describe("other runtimes: Bun and Deno, from the same tarballs", () => {
  let p;
  const bins = {};
  before(async () => {
    p = await project("runtimes", process.execPath, { compiler: true });
    await npmInstall(p, tarballs);
    await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--no-save",
        ...Object.values(RUNTIMES).map(([pkg]) => pkg),
      ],
      { cwd: p.dir, env: p.env, timeout: 3 * STEP_MS },
    );
    for (const name of Object.keys(RUNTIMES)) bins[name] = join(p.dir, "node_modules/.bin", name);
    writeWorkerPool(p.dir);
  });

  for (const [name, [pkg, args]] of Object.entries(RUNTIMES)) {
    describe(pkg, () => {
      for (const transport of Object.keys(TRANSPORTS)) {
        it(`${transport}: the README greeter, two processes`, () => {
          const file = `greeter-${transport}.mjs`;
          return serveAndCall(
            p,
            [bins[name], ...args, file, "serve"],
            [bins[name], ...args, file, "call"],
            `${name}-${transport}.sock`,
          );
        });
      }
      it("the worker README's pool", async () => {
        const r = await run(bins[name], [...args, "pool.mjs"], { cwd: p.dir, env: p.env });
        assert.equal(r.stdout.trim(), "hello, Ada; hello, Grace; hello, Edsger; hello, Barbara");
      });
    });
  }
});

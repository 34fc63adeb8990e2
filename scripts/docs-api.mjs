// `pnpm docs:api`: the API reference (TypeDoc, typedoc.json) into docs/api/, then two checks.
//
// 1. TypeDoc, with `--gitRevision` the checked-out commit, so that every source link and every
//    README link into the repository names the commit the docs were built from. A TypeDoc
//    warning fails (treatWarningsAsErrors).
// 2. The link check (scripts/doc-links.mjs): every relative link resolves to a file (and its
//    anchor), every repository link to a path the repository tracks, at that commit.
// 3. Screenshots of the landing page and one package page, by headless Chromium, into
//    docs/screenshots/ (committed: what the reference looks like, without building it). The page
//    must render: a PNG of the window's size, not blank. Skipped, with a note, when no Chromium
//    is on PATH (Debian: apt-get install chromium). Chromium is found and driven by the bench's
//    report/chromium module, one copy for both; so this script runs after `pnpm build`.
//
//   node scripts/docs-api.mjs
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findChromium, screenshot } from "../apps/bench/dist/report/chromium.js";
import { checkDocLinks } from "./doc-links.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const config = JSON.parse(readFileSync(join(root, "typedoc.json"), "utf8"));
const outDir = join(root, config.out);
const repoUrl = config.sourceLinkTemplate.replace(/\/blob\/.*$/, "");
const SHOTS = [
  { page: "index.html", png: "docs/screenshots/api-index.png" },
  { page: "modules/_nearwire_uds.html", png: "docs/screenshots/api-uds.png" },
];
const WINDOW = { width: 1400, height: 1100 };

/** The checked-out commit, or the configured revision where there is no git. */
function revision() {
  try {
    return execFileSync("git", ["-C", root, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    return config.gitRevision;
  }
}

/** Fails unless `png` is a PNG of the window's size with something on it. */
function checkScreenshot(png) {
  const bytes = readFileSync(png);
  const signature = bytes.subarray(0, 8).toString("hex");
  if (signature !== "89504e470d0a1a0a") throw new Error(`${png}: not a PNG`);
  const size = { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (size.width !== WINDOW.width || size.height !== WINDOW.height)
    throw new Error(`${png}: ${size.width}×${size.height}, not ${WINDOW.width}×${WINDOW.height}`);
  // A blank window compresses to a few KiB; a page of text and code to 100s of KiB.
  if (bytes.length < 50_000) throw new Error(`${png}: ${bytes.length} B, the page looks blank`);
}

const rev = revision();
const started = performance.now();
const seconds = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
execFileSync(
  join(root, "node_modules/.bin/typedoc"),
  ["--logLevel", "Warn", "--gitRevision", rev],
  { cwd: root, stdio: "inherit" },
);
console.log(`typedoc: ${outDir} at ${rev} (${seconds()})`);

const { problems, checked } = checkDocLinks({ outDir, root, repoUrl, revision: rev });
if (problems.length > 0) {
  console.error(`${problems.length} broken links in ${config.out}:\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`links: ${checked} checked, none broken (${seconds()})`);

const chromium = findChromium();
if (chromium === undefined) {
  console.log("screenshots skipped: no chromium on PATH (apt-get install chromium)");
} else {
  for (const { page, png } of SHOTS) {
    mkdirSync(dirname(join(root, png)), { recursive: true });
    // TypeDoc shows a page only once its script ran (it hides the body until then), so the
    // virtual time budget lets the page's timers run before the shot.
    await screenshot(chromium, join(outDir, page), join(root, png), {
      ...WINDOW,
      virtualTimeBudgetMs: 3000,
      timeoutMs: 60_000,
    });
    checkScreenshot(join(root, png));
  }
  console.log(`screenshots: ${SHOTS.map((s) => s.png).join(", ")} (${seconds()})`);
}

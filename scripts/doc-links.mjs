// The link check of the API reference (scripts/docs-api.mjs runs it after TypeDoc): every link
// and asset reference in the generated HTML must lead somewhere.
//
//   relative   the file exists under the output folder; an `#anchor` into an .html or .svg
//              file exists there as an id
//   repository a link to the repository (source links, README links the plugin rewrote:
//              `<repo>/blob/<revision>/<path>#L<n>`, `<repo>/tree/<revision>/<dir>`) names the
//              revision the docs were built for, a path the repository tracks (`git ls-files`;
//              the file system where there is no git), and a line the file has
//   file names a web address whose host is a file name (`http://PROTOCOL.md`: markdown's
//              linkify took "PROTOCOL.md" for a domain) is broken
//
// Other absolute links (https://typedoc.org, the READMEs' outside links) are not fetched: CI
// has no network.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const ATTRIBUTE = /\s(?:href|src)="([^"]*)"/g;

/** Every file under `dir`, recursively. */
function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** The repository's tracked paths (and their folders), or undefined without git. */
function trackedPaths(root) {
  let out;
  try {
    out = execFileSync("git", ["-C", root, "ls-files", "-z"], { encoding: "utf8" });
  } catch {
    return undefined;
  }
  const paths = new Set();
  for (const file of out.split("\0").filter(Boolean)) {
    paths.add(file);
    for (let d = dirname(file); d !== "."; d = dirname(d)) paths.add(d);
  }
  return paths;
}

const decode = (s) =>
  decodeURIComponent(s.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&#39;", "'"));

/**
 * Checks the links of the HTML under `outDir`. `repoUrl` is the repository's web address
 * (`https://github.com/owner/name`), `revision` the one the links must name, `root` the checkout.
 * Returns the problems, one line each (`page: link: why`), and how many links were checked.
 */
export function checkDocLinks({ outDir, root, repoUrl, revision }) {
  const tracked = trackedPaths(root);
  const lineCounts = new Map();
  const idCache = new Map();
  const ids = (file) => {
    if (!idCache.has(file)) {
      const text = readFileSync(file, "utf8");
      idCache.set(file, new Set([...text.matchAll(/\sid="([^"]*)"/g)].map((m) => decode(m[1]))));
    }
    return idCache.get(file);
  };
  const repoLink = new RegExp(
    `^${repoUrl.replaceAll(".", "\\.")}/(blob|tree)/([^/]+)/([^#]*)(#.*)?$`,
  );
  const problems = [];
  let checked = 0;
  for (const page of walk(outDir).filter((f) => f.endsWith(".html"))) {
    const from = relative(outDir, page);
    const html = readFileSync(page, "utf8");
    for (const [, raw] of html.matchAll(ATTRIBUTE)) {
      const link = decode(raw);
      const bad = (why) => problems.push(`${from}: ${link}: ${why}`);
      const repo = repoLink.exec(link);
      if (repo) {
        checked++;
        const [, kind, rev, path, anchor] = repo;
        if (rev !== revision) bad(`revision ${rev}, not ${revision}`);
        const abs = join(root, path);
        const exists = tracked ? tracked.has(path) : existsSync(abs);
        if (!exists) {
          bad("no such path in the repository");
          continue;
        }
        if ((kind === "tree") !== statSync(abs).isDirectory()) bad(`${kind}/ names the wrong kind`);
        const line = /^#L(\d+)$/.exec(anchor ?? "")?.[1];
        if (line !== undefined) {
          if (!lineCounts.has(abs))
            lineCounts.set(abs, readFileSync(abs, "utf8").split("\n").length);
          if (Number(line) > lineCounts.get(abs))
            bad(`line ${line} > ${lineCounts.get(abs)} lines`);
        }
        continue;
      }
      if (/^https?:\/\/[^/]+\.(md|[cm]?[jt]s|json|html|txt)(\/|$)/i.test(link)) {
        bad("a file name made into a web address");
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // another site, mailto:, data:
      checked++;
      const [path, anchor] = link.split("#", 2);
      let target = path === "" ? page : join(dirname(page), path.split("?")[0]);
      if (existsSync(target) && statSync(target).isDirectory()) target = join(target, "index.html");
      if (!existsSync(target)) {
        bad("no such file");
        continue;
      }
      if (anchor && /\.(html|svg)$/.test(target) && !ids(target).has(anchor)) bad("no such anchor");
    }
  }
  return { problems, checked };
}

// TypeDoc plugin for the API reference (typedoc.json loads it; `pnpm docs:api` runs it):
//
// - A package's root export is the package's page: TypeDoc's packages mode names the module of
//   a package's "." export "" (the export key without "./"), so every package with subpaths
//   showed an empty "Module" with the breadcrumb `@nearwire/core / /`. The root module's
//   members move up into the package, and each subpath module is named as it is imported
//   (`@nearwire/core/protocol`).
// - Relative links in the READMEs: a link to a documented package (`../uds`,
//   `packages/worker/README.md#…`) goes to that package's page; a link to any other file or
//   folder of the repository (PROTOCOL.md, docs/, apps/, interop/) goes to the repository at the
//   revision the source links use, instead of a copy of the file under media/ (a folder cannot
//   be copied at all, which TypeDoc reports as a warning).
// - Source links into the repository only: a member a package inherits from another (core's
//   `RpcOptions` in uds's options) is declared, for the compiler, in the other package's built
//   `dist/*.d.ts`, which the repository does not have; its link goes to the same declaration in
//   that package's `src/*.ts` (matched by its qualified name). A declaration of TypeScript's
//   own libraries or of @types/node (Error's `message`) keeps its "Defined in" line, unlinked.
// - Bare file names in comments ("PROTOCOL.md") stay text instead of becoming web addresses.
// - The root `gitRevision` (`--gitRevision <commit>` from scripts/docs-api.mjs) applies to every
//   package: packages mode gives each package only the root's `packageOptions`.
import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, sep } from "node:path";
import { Application, Converter, ReflectionKind } from "typedoc";

const ts = createRequire(import.meta.url)("typescript");

/**
 * Where each declaration of a TypeScript file is: qualified name (`RpcOptions.maxMessageBytes`)
 * → line of its name, and back. A `.d.ts` and the `.ts` it was built from declare the same names.
 */
function declarations(file) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const lineOf = new Map();
  const nameAt = new Map();
  const visit = (node, prefix) => {
    let qualified = prefix;
    const name = node.name;
    if (
      name &&
      (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name))
    ) {
      qualified = prefix ? `${prefix}.${name.text}` : name.text;
      const line = source.getLineAndCharacterOfPosition(name.getStart(source)).line + 1;
      if (!lineOf.has(qualified)) lineOf.set(qualified, line);
      if (!nameAt.has(line)) nameAt.set(line, qualified);
    }
    ts.forEachChild(node, (child) => visit(child, qualified));
  };
  visit(source, "");
  return { lineOf, nameAt };
}

/** @param {import("typedoc").Application} app */
export function load(app) {
  app.on(Application.EVENT_BOOTSTRAP_END, () => {
    // markdown-it's linkify also links bare names with a top-level domain's ending: the comments'
    // "PROTOCOL.md" became http://PROTOCOL.md (Moldova). Only links with a scheme are made.
    app.options.setValue("markdownItLoader", (parser) => parser.linkify.set({ fuzzyLink: false }));
    const packageOptions = app.options.getValue("packageOptions");
    app.options.setValue("packageOptions", {
      ...packageOptions,
      gitRevision: app.options.getValue("gitRevision"),
    });
  });

  // Per package, before TypeDoc groups the members.
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    const modules = project.children?.filter((c) => c.kindOf(ReflectionKind.Module)) ?? [];
    const main = modules.find((m) => m.name === "");
    if (main === undefined) return;
    for (const child of [...(main.childrenIncludingDocuments ?? [])]) {
      main.removeChild(child);
      child.parent = project;
      project.addChild(child);
    }
    project.comment ??= main.comment;
    project.removeChild(main);
    project.removeReflection(main);
    for (const m of modules)
      if (m !== main) m.name = `${project.packageName ?? project.name}/${m.name}`;
  });

  // The merged project: every package is a module of it.
  app.on(Application.EVENT_PROJECT_REVIVE, (project) => {
    const root = process.cwd();
    const packageDirs = new Map();
    for (const dir of app.options.getValue("entryPoints")) {
      const name = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name;
      const module = project.children?.find((c) => c.name === name);
      if (module) packageDirs.set(dir, module);
    }
    const template = app.options.getValue("sourceLinkTemplate");
    const revision = app.options.getValue("gitRevision");
    const repoUrl = (path) => {
      const rel = relative(root, path).split(sep).join("/");
      const kind = statSync(path).isDirectory() ? "tree" : "blob";
      return template
        .replace("{gitRevision}", revision)
        .replace("/blob/", `/${kind}/`)
        .replace("{path}", rel)
        .replace(/#L\{line\}$/, "");
    };

    const sourceUrl = (path, line) =>
      template
        .replace("{gitRevision}", revision)
        .replace("{path}", path)
        .replace(line === undefined ? /#L\{line\}$/ : "{line}", line === undefined ? "" : line);
    const parsed = new Map();
    const parse = (file) => {
      if (!parsed.has(file)) parsed.set(file, declarations(file));
      return parsed.get(file);
    };
    for (const reflection of Object.values(project.reflections)) {
      for (const source of reflection.sources ?? []) {
        if (/(^|\/)node_modules\//.test(source.fileName)) {
          source.url = undefined;
          continue;
        }
        const built = /^(packages\/[^/]+)\/dist\/(.+)\.d\.ts$/.exec(source.fileName);
        if (!built) continue;
        const src = `${built[1]}/src/${built[2]}.ts`;
        const from = join(root, source.fileName);
        if (!existsSync(join(root, src)) || !existsSync(from)) {
          source.url = undefined;
          continue;
        }
        const name = parse(from).nameAt.get(source.line);
        const line = name === undefined ? undefined : parse(join(root, src)).lineOf.get(name);
        source.fileName = src;
        source.fullFileName = join(root, src);
        source.line = line ?? 1;
        source.character = 0;
        source.url = sourceUrl(src, line);
      }
    }

    /** Media id → the URL of the repository file it stood for. */
    const external = new Map();
    for (const [id, path] of [...project.files.mediaToPath]) {
      if (project.files.mediaToReflection.has(id)) continue;
      const dir = path.endsWith("/README.md") ? dirname(path) : path;
      const module = packageDirs.get(dir);
      if (module) {
        project.files.registerReflectionPath(path, module);
      } else if (existsSync(path) && !relative(root, path).startsWith("..")) {
        external.set(id, repoUrl(path));
        project.files.mediaToPath.delete(id);
        project.files.pathToMedia.delete(path);
      }
    }
    const rewrite = (parts) => {
      for (const part of parts ?? []) {
        if (part.kind !== "relative-link" || !external.has(part.target)) continue;
        part.text = external.get(part.target) + (part.targetAnchor ? `#${part.targetAnchor}` : "");
        part.target = undefined;
        part.targetAnchor = undefined;
      }
    };
    rewrite(project.readme);
    for (const reflection of Object.values(project.reflections)) {
      rewrite(reflection.readme);
      rewrite(reflection.content);
      rewrite(reflection.comment?.summary);
      for (const tag of reflection.comment?.blockTags ?? []) rewrite(tag.content);
    }
  });
}

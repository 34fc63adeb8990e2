import { relative } from "node:path";
import type { CaseSpec } from "./case-spec.js";
import { buildGoBench, DEFAULT_GOPATH, findGo, GO_INSTALL_HINT } from "./go-build.js";
import { isGoTransport } from "./go-case.js";
import type { Availability } from "./plugins.js";

/**
 * Whether the go-* rows of a run can be measured: when cases select them, finds `go` (for
 * `--list`) or builds the yardstick (a run), and otherwise drops them with one line saying why
 * and how to install Go. Never fails the run.
 */

/** The cases to run, the yardstick's binary when built, and what to print and record. */
export interface GoRows {
  cases: CaseSpec[];
  binary?: string;
  /** One line for the terminal (undefined when no go-* row was selected). */
  line?: string;
  availability?: Availability;
}

const NAME = "go (grpc-go yardstick)";

/** Resolves the go-* rows among `cases`; `build` false only looks for `go` (as `--list` does). */
export function resolveGoRows(
  cases: readonly CaseSpec[],
  build: boolean,
  env: NodeJS.ProcessEnv = process.env,
): GoRows {
  if (!cases.some((c) => isGoTransport(c.transport))) return { cases: [...cases] };
  const skip = (why: string, status: Availability["status"]): GoRows => {
    const gopath = env.NEARWIRE_BENCH_GOPATH ?? DEFAULT_GOPATH;
    return {
      cases: cases.filter((c) => !isGoTransport(c.transport)),
      line: `  ${NAME}: go-* rows skipped (${why}); to measure them: ${GO_INSTALL_HINT} (built with GOPATH=${gopath} GO111MODULE=off)`,
      availability: { name: NAME, status, detail: `${why}; install: ${GO_INSTALL_HINT}` },
    };
  };
  const ok = (version: string, built = "") => ({
    cases: [...cases],
    line: `  ${NAME}: ok (${version}${built})`,
    availability: { name: NAME, status: "ok" as const, detail: version },
  });
  if (!build) {
    const go = findGo(env);
    return "missing" in go ? skip(go.missing, "absent") : ok(go.version);
  }
  const built = buildGoBench(env);
  if ("failed" in built)
    return skip(built.failed, built.version === undefined ? "absent" : "error");
  const where = relative(process.cwd(), built.binary) || built.binary;
  return {
    ...ok(built.version, `; ${built.cached ? "cached" : "built"}: ${where}`),
    binary: built.binary,
  };
}

/**
 * Entry of a conformance server in a worker thread (`thread-child.ts`): Node 20 does not apply
 * the parent's `--import tsx` to a worker, so this registers tsx when the thread imports
 * TypeScript (a `.ts` factory or codec module, or this package's own sources), then runs
 * `server-main` in thread mode.
 */
import { workerData } from "node:worker_threads";
import { needsTsLoader } from "./child-process.js";
import type { ServerMainConfig } from "./server-main.js";

const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
const { config } = workerData as { config: ServerMainConfig };
if (needsTsLoader(`server-main${ext}`, [config.factoryModule, config.codec?.module])) {
  const tsxApi = "tsx/esm/api";
  const { register } = (await import(tsxApi)) as { register: () => void };
  register();
}
await import(`./server-main${ext}`);

/**
 * Entry of a conformance server in a worker thread (`thread-child.ts`): Node 20 does not apply
 * the parent's `--import tsx` to a worker, so this registers tsx (the factory modules are
 * TypeScript test fixtures), then runs `server-main` in thread mode.
 */
const tsxApi = "tsx/esm/api";
const { register } = (await import(tsxApi)) as { register: () => void };
register();
const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
await import(`./server-main${ext}`);

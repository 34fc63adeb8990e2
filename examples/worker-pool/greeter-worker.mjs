// The worker's entry file. Node 20 does not apply `--import tsx` to a worker thread's entry, so
// this plain-JS entry registers tsx in the worker and then loads the TypeScript. (Compiled to
// JavaScript, pool.ts would point at greeter-worker.js directly.)
import { register } from "tsx/esm/api";

register();
await import("./greeter-worker.ts");

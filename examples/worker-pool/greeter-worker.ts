// A pool worker: serves Greeter to the thread that started it, over shared-memory rings.
import { parentPort, threadId } from "node:worker_threads";
import { jsonCodec } from "@nearwire/core";
import { createWorkerTransport } from "@nearwire/worker";
import { Greeter } from "./greeter.js";

if (parentPort === null) throw new Error("greeter-worker.ts runs as a worker thread");
const server = createWorkerTransport({ port: parentPort }).createServer();
server.addService(
  Greeter,
  { say: ({ name }) => ({ text: `hello, ${name}`, thread: threadId }) },
  { codec: jsonCodec },
);
await server.listen(); // the worker lives while it listens; the pool terminates it at the end

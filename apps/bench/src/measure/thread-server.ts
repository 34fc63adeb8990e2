import { parentPort, workerData } from "node:worker_threads";
import type { CaseSpec } from "./case-spec.js";
import { loadPlugins, type PackageName, packageOf, setThreadEndpoint } from "./plugins.js";

/**
 * Worker-thread entry of the cases whose server is a thread of the client process
 * (`serverInThread`): the `bare-postmessage` echo, or a nearwire worker-transport server
 * (channel or RPC layer) listening on `parentPort` (the transport's set-up waits for it). It
 * lives until the client process terminates it.
 */
const { spec } = workerData as { spec: CaseSpec };
const port = parentPort;
if (port === null) throw new Error("thread-server runs in a worker thread");

if (spec.transport === "bare-postmessage") {
  (await import("./bare-postmessage.js")).servePostMessageEcho(port);
} else {
  const pkg = packageOf(spec.transport) as PackageName;
  const only: PackageName[] = [pkg];
  if (spec.layer === "rpc") only.push("@nearwire/bench-messages");
  const plugins = await loadPlugins(only);
  const plugin = plugins.transports.find((t) => t.id === spec.transport);
  if (plugin === undefined) throw new Error(`transport ${spec.transport} not available`);
  setThreadEndpoint(port);
  const nw = await import("./nearwire-endpoints.js");
  if (spec.layer === "channel") await nw.startChannelServer(plugin, "thread");
  else await nw.startRpcServer(plugin, spec, "thread", plugins.messages);
}

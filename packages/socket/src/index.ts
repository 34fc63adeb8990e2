export type { BindSocketFileOptions } from "./bind-socket-file.js";
export { bindSocketFile } from "./bind-socket-file.js";
export type { ForeignProtocol } from "./foreign-protocol.js";
export {
  SHM_SNIFF_BYTES,
  SNIFF_BYTES,
  sniffForeignProtocol,
  sniffWants,
} from "./foreign-protocol.js";
export { nothingListens, probeListener } from "./nothing-listens.js";
export type { PeerGate } from "./peer-gate.js";
export { checkPeerAuthorization, createPeerGate, peerRefused } from "./peer-gate.js";
export type { SocketAddress } from "./socket-address.js";
export { formatTcp, MAX_SOCKET_PATH_BYTES, netPath, parseAddress } from "./socket-address.js";
export type { ReadSink } from "./socket-reader.js";
export { adoptAccepted, READ_BUFFER_BYTES, SocketReader } from "./socket-reader.js";
export { addressInUse, clearStaleSocket, removeOwnSocket } from "./stale-socket.js";
export type { StreamListener, StreamListenerOptions } from "./stream-listener.js";
export { bindStreamListener, DEFAULT_BACKLOG, DEFAULT_SOCKET_MODE } from "./stream-listener.js";

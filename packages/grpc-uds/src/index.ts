export { REASON_TRAILER } from "./grpc-metadata.js";
export { DEFAULT_GRACE_MS } from "./grpc-server.js";
export { grpcTarget } from "./grpc-target.js";
export type { GrpcTransportOptions } from "./grpc-transport.js";
export { createGrpcTransport, DEFAULT_MAX_MESSAGE_BYTES } from "./grpc-transport.js";

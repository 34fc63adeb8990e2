export { REASON_TRAILER } from "./grpc/grpc-metadata.js";
export { grpcTarget } from "./grpc-target.js";
export type { GrpcTransportOptions } from "./grpc-transport.js";
export { createGrpcTransport, DEFAULT_MAX_MESSAGE_BYTES } from "./grpc-transport.js";
export { DEFAULT_GRACE_MS } from "./server/grpc-server.js";
export type { GrpcTlsOptions } from "./tls-options.js";

/** The messages of grpc.reflection.v1 (and v1alpha, byte-identical) and their wire codec. */
import { Code, type Codec, createCodec, type MessageCodec, NearwireError } from "@nearwire/core";
import { LENGTH_DELIMITED, ProtoReader, ProtoWriter, tagOf, VARINT } from "./proto-wire.js";

/** `ExtensionRequest`: extension `extensionNumber` of message `containingType`. */
export interface ExtensionRequest {
  containingType: string;
  extensionNumber: number;
}

/**
 * The `message_request` oneof of {@link ServerReflectionRequest}: which field was set, and its
 * value (`listServices` is set even when its string is empty).
 */
export type MessageRequest =
  | { readonly case: "fileByFilename"; readonly value: string }
  | { readonly case: "fileContainingSymbol"; readonly value: string }
  | { readonly case: "fileContainingExtension"; readonly value: ExtensionRequest }
  | { readonly case: "allExtensionNumbersOfType"; readonly value: string }
  | { readonly case: "listServices"; readonly value: string };

/** `ServerReflectionRequest`: `host` and one request, absent when none was set. */
export interface ServerReflectionRequest {
  host: string;
  messageRequest?: MessageRequest;
}

/** `FileDescriptorResponse`: encoded `google.protobuf.FileDescriptorProto`s. */
export interface FileDescriptorResponse {
  fileDescriptorProto: Uint8Array[];
}

/** `ExtensionNumberResponse`: the extension numbers of message `baseTypeName`. */
export interface ExtensionNumberResponse {
  baseTypeName: string;
  extensionNumber: number[];
}

/** `ServiceResponse`: a fully-qualified service name. */
export interface ServiceResponse {
  name: string;
}

/** `ListServiceResponse`: the services the server serves. */
export interface ListServiceResponse {
  service: ServiceResponse[];
}

/** `ErrorResponse`: a gRPC status code and message for one request. */
export interface ErrorResponse {
  errorCode: number;
  errorMessage: string;
}

/** The `message_response` oneof of {@link ServerReflectionResponse}. */
export type MessageResponse =
  | { readonly case: "fileDescriptorResponse"; readonly value: FileDescriptorResponse }
  | { readonly case: "allExtensionNumbersResponse"; readonly value: ExtensionNumberResponse }
  | { readonly case: "listServicesResponse"; readonly value: ListServiceResponse }
  | { readonly case: "errorResponse"; readonly value: ErrorResponse };

/** `ServerReflectionResponse`: the answer to one request, which it echoes. */
export interface ServerReflectionResponse {
  validHost: string;
  originalRequest?: ServerReflectionRequest;
  messageResponse?: MessageResponse;
}

/** The two packages the messages are registered under. */
export const REFLECTION_PACKAGES = ["grpc.reflection.v1", "grpc.reflection.v1alpha"] as const;

const LEN = LENGTH_DELIMITED;

// ServerReflectionRequest
const HOST = tagOf(1, LEN);
const FILE_BY_FILENAME = tagOf(3, LEN);
const FILE_CONTAINING_SYMBOL = tagOf(4, LEN);
const FILE_CONTAINING_EXTENSION = tagOf(5, LEN);
const ALL_EXTENSION_NUMBERS_OF_TYPE = tagOf(6, LEN);
const LIST_SERVICES = tagOf(7, LEN);
// ExtensionRequest
const CONTAINING_TYPE = tagOf(1, LEN);
const EXTENSION_NUMBER = tagOf(2, VARINT);
// ServerReflectionResponse
const VALID_HOST = tagOf(1, LEN);
const ORIGINAL_REQUEST = tagOf(2, LEN);
const FILE_DESCRIPTOR_RESPONSE = tagOf(4, LEN);
const ALL_EXTENSION_NUMBERS_RESPONSE = tagOf(5, LEN);
const LIST_SERVICES_RESPONSE = tagOf(6, LEN);
const ERROR_RESPONSE = tagOf(7, LEN);
// FileDescriptorResponse, ListServiceResponse, ServiceResponse
const FIRST_LEN = tagOf(1, LEN);
// ExtensionNumberResponse
const BASE_TYPE_NAME = tagOf(1, LEN);
const EXTENSION_NUMBERS_PACKED = tagOf(2, LEN);
const EXTENSION_NUMBERS_ONE = tagOf(2, VARINT);
// ErrorResponse
const ERROR_CODE = tagOf(1, VARINT);
const ERROR_MESSAGE = tagOf(2, LEN);

const REQUEST = "grpc.reflection.v1.ServerReflectionRequest";
const RESPONSE = "grpc.reflection.v1.ServerReflectionResponse";

function writeRequest(w: ProtoWriter, request: ServerReflectionRequest): ProtoWriter {
  if (request.host !== "") w.string(1, request.host);
  const oneof = request.messageRequest;
  if (oneof === undefined) return w;
  switch (oneof.case) {
    case "fileByFilename":
      return w.string(3, oneof.value);
    case "fileContainingSymbol":
      return w.string(4, oneof.value);
    case "fileContainingExtension": {
      const e = new ProtoWriter();
      if (oneof.value.containingType !== "") e.string(1, oneof.value.containingType);
      if (oneof.value.extensionNumber !== 0) e.int32(2, oneof.value.extensionNumber);
      return w.bytes(5, e.finish());
    }
    case "allExtensionNumbersOfType":
      return w.string(6, oneof.value);
    case "listServices":
      return w.string(7, oneof.value);
  }
}

function readExtensionRequest(r: ProtoReader): ExtensionRequest {
  const out: ExtensionRequest = { containingType: "", extensionNumber: 0 };
  while (!r.done) {
    const tag = r.tag();
    if (tag === CONTAINING_TYPE) out.containingType = r.string();
    else if (tag === EXTENSION_NUMBER) out.extensionNumber = r.int32();
    else r.skip(tag & 7);
  }
  return out;
}

function readRequest(r: ProtoReader): ServerReflectionRequest {
  let host = "";
  let messageRequest: MessageRequest | undefined;
  while (!r.done) {
    const tag = r.tag();
    switch (tag) {
      case HOST:
        host = r.string();
        break;
      case FILE_BY_FILENAME:
        messageRequest = { case: "fileByFilename", value: r.string() };
        break;
      case FILE_CONTAINING_SYMBOL:
        messageRequest = { case: "fileContainingSymbol", value: r.string() };
        break;
      case FILE_CONTAINING_EXTENSION:
        messageRequest = {
          case: "fileContainingExtension",
          value: readExtensionRequest(r.message("grpc.reflection.v1.ExtensionRequest")),
        };
        break;
      case ALL_EXTENSION_NUMBERS_OF_TYPE:
        messageRequest = { case: "allExtensionNumbersOfType", value: r.string() };
        break;
      case LIST_SERVICES:
        messageRequest = { case: "listServices", value: r.string() };
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return messageRequest === undefined ? { host } : { host, messageRequest };
}

function encodeMessageResponse(oneof: MessageResponse): [number, Uint8Array] {
  const w = new ProtoWriter();
  switch (oneof.case) {
    case "fileDescriptorResponse":
      for (const file of oneof.value.fileDescriptorProto) w.bytes(1, file);
      return [4, w.finish()];
    case "allExtensionNumbersResponse":
      if (oneof.value.baseTypeName !== "") w.string(1, oneof.value.baseTypeName);
      return [5, w.packedInt32(2, oneof.value.extensionNumber).finish()];
    case "listServicesResponse":
      for (const { name } of oneof.value.service)
        w.bytes(1, name === "" ? new Uint8Array(0) : new ProtoWriter().string(1, name).finish());
      return [6, w.finish()];
    case "errorResponse":
      if (oneof.value.errorCode !== 0) w.int32(1, oneof.value.errorCode);
      if (oneof.value.errorMessage !== "") w.string(2, oneof.value.errorMessage);
      return [7, w.finish()];
  }
}

function readFileDescriptorResponse(r: ProtoReader): FileDescriptorResponse {
  const fileDescriptorProto: Uint8Array[] = [];
  while (!r.done) {
    const tag = r.tag();
    if (tag === FIRST_LEN) fileDescriptorProto.push(r.bytesCopy());
    else r.skip(tag & 7);
  }
  return { fileDescriptorProto };
}

function readExtensionNumberResponse(r: ProtoReader): ExtensionNumberResponse {
  const out: ExtensionNumberResponse = { baseTypeName: "", extensionNumber: [] };
  while (!r.done) {
    const tag = r.tag();
    if (tag === BASE_TYPE_NAME) out.baseTypeName = r.string();
    else if (tag === EXTENSION_NUMBERS_ONE) out.extensionNumber.push(r.int32());
    else if (tag === EXTENSION_NUMBERS_PACKED) {
      const packed = r.message(r.typeName);
      while (!packed.done) out.extensionNumber.push(packed.int32());
    } else r.skip(tag & 7);
  }
  return out;
}

function readListServiceResponse(r: ProtoReader): ListServiceResponse {
  const service: ServiceResponse[] = [];
  while (!r.done) {
    const tag = r.tag();
    if (tag !== FIRST_LEN) {
      r.skip(tag & 7);
      continue;
    }
    const s = r.message("grpc.reflection.v1.ServiceResponse");
    let name = "";
    while (!s.done) {
      const inner = s.tag();
      if (inner === FIRST_LEN) name = s.string();
      else s.skip(inner & 7);
    }
    service.push({ name });
  }
  return { service };
}

function readErrorResponse(r: ProtoReader): ErrorResponse {
  const out: ErrorResponse = { errorCode: 0, errorMessage: "" };
  while (!r.done) {
    const tag = r.tag();
    if (tag === ERROR_CODE) out.errorCode = r.int32();
    else if (tag === ERROR_MESSAGE) out.errorMessage = r.string();
    else r.skip(tag & 7);
  }
  return out;
}

function readResponse(r: ProtoReader): ServerReflectionResponse {
  const out: ServerReflectionResponse = { validHost: "" };
  while (!r.done) {
    const tag = r.tag();
    switch (tag) {
      case VALID_HOST:
        out.validHost = r.string();
        break;
      case ORIGINAL_REQUEST:
        out.originalRequest = readRequest(r.message(REQUEST));
        break;
      case FILE_DESCRIPTOR_RESPONSE:
        out.messageResponse = {
          case: "fileDescriptorResponse",
          value: readFileDescriptorResponse(r.message("grpc.reflection.v1.FileDescriptorResponse")),
        };
        break;
      case ALL_EXTENSION_NUMBERS_RESPONSE:
        out.messageResponse = {
          case: "allExtensionNumbersResponse",
          value: readExtensionNumberResponse(
            r.message("grpc.reflection.v1.ExtensionNumberResponse"),
          ),
        };
        break;
      case LIST_SERVICES_RESPONSE:
        out.messageResponse = {
          case: "listServicesResponse",
          value: readListServiceResponse(r.message("grpc.reflection.v1.ListServiceResponse")),
        };
        break;
      case ERROR_RESPONSE:
        out.messageResponse = {
          case: "errorResponse",
          value: readErrorResponse(r.message("grpc.reflection.v1.ErrorResponse")),
        };
        break;
      default:
        r.skip(tag & 7);
    }
  }
  return out;
}

/** Runs `encode`, turning anything it throws into INTERNAL `encode-failed`. */
function encoding(type: string, encode: () => Uint8Array): Uint8Array {
  try {
    return encode();
  } catch (cause) {
    throw new NearwireError(Code.Internal, `${type}: encode failed: ${String(cause)}`, {
      cause,
      reason: "encode-failed",
    });
  }
}

const requestCodec: MessageCodec<ServerReflectionRequest> = {
  decodesInPlace: false,
  encode: (value) => encoding(REQUEST, () => writeRequest(new ProtoWriter(), value).finish()),
  decode: (bytes) => readRequest(new ProtoReader(bytes, REQUEST)),
};

const responseCodec: MessageCodec<ServerReflectionResponse> = {
  decodesInPlace: false,
  encode: (value) =>
    encoding(RESPONSE, () => {
      const w = new ProtoWriter();
      if (value.validHost !== "") w.string(1, value.validHost);
      if (value.originalRequest !== undefined)
        w.bytes(2, writeRequest(new ProtoWriter(), value.originalRequest).finish());
      if (value.messageResponse !== undefined)
        w.bytes(...encodeMessageResponse(value.messageResponse));
      return w.finish();
    }),
  decode: (bytes) => readResponse(new ProtoReader(bytes, RESPONSE)),
};

/**
 * The codec of `ServerReflectionRequest` and `ServerReflectionResponse` in the protobuf wire
 * format of `grpc/reflection/v1/reflection.proto`, registered under both
 * `grpc.reflection.v1.*` and `grpc.reflection.v1alpha.*` (the messages are byte-identical).
 * Hand-written: grpc-uds carries no protobuf library. Decode failures are INVALID_ARGUMENT
 * `decode-failed`; unknown fields are skipped; decoded values never view the input.
 */
export const reflectionCodec: Codec = createCodec(
  "protobuf",
  Object.fromEntries(
    REFLECTION_PACKAGES.flatMap((pkg) => [
      [`${pkg}.ServerReflectionRequest`, requestCodec as MessageCodec<unknown>],
      [`${pkg}.ServerReflectionResponse`, responseCodec as MessageCodec<unknown>],
    ]),
  ),
);
